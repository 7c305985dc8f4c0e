import { useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, unwrap } from '../api/client';
import { useSession } from '../session';
import { applyTheme, storedTheme, type Theme } from '../theme';
import { ErrorPanel } from './states';

interface NavItem {
  to: string;
  label: string;
}

const ADMIN_NAV: NavItem[] = [
  { to: '/', label: 'Overview' },
  { to: '/users', label: 'Users' },
  { to: '/clients', label: 'Connected clients' },
  { to: '/files', label: 'Files' },
  { to: '/tasks', label: 'Tasks' },
  { to: '/approvals', label: 'Approvals' },
  { to: '/tools', label: 'Tools' },
  { to: '/audit', label: 'Audit trail' },
];

const ACCOUNT_NAV: NavItem[] = [
  { to: '/account', label: 'My account' },
  { to: '/account/memories', label: 'My memories' },
  { to: '/account/files', label: 'My files' },
  { to: '/account/tasks', label: 'My tasks' },
];

/** The frame of every page: a skip link, the header with who is signed in, the navigation, the page. */
export function Shell({ children }: { children: ReactNode }) {
  const session = useSession();
  const queryClient = useQueryClient();
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const [signOutError, setSignOutError] = useState<unknown>();

  const signOut = async () => {
    try {
      await unwrap(api.DELETE('/api/console/session'));
      queryClient.clear();
      window.location.assign('/console/');
    } catch (error) {
      setSignOutError(error);
    }
  };
  const nav = session.user.admin
    ? [
        { heading: 'Administration', items: ADMIN_NAV },
        { heading: 'Me', items: ACCOUNT_NAV },
      ]
    : [{ heading: 'Me', items: [...ACCOUNT_NAV, { to: '/tools', label: 'Tools' }] }];

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <Link to="/" className="brand">
          Mirobody
        </Link>
        <div className="who">
          <span title={session.user.email ?? undefined}>{session.user.name ?? session.user.email ?? 'Signed in'}</span>
          {session.user.admin && <span className="badge">admin</span>}
        </div>
        <label className="theme">
          <span className="visually-hidden">Theme</span>
          <select
            value={theme}
            onChange={(event) => {
              const next = event.target.value as Theme;
              setTheme(next);
              applyTheme(next);
            }}
          >
            <option value="system">System theme</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        {session.csrfToken !== null && (
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </header>
      <nav className="side-nav" aria-label="Console">
        {nav.map((group) => (
          <div key={group.heading}>
            <p className="nav-heading">{group.heading}</p>
            <ul>
              {group.items.map((item) => (
                <li key={item.to}>
                  <Link to={item.to} activeOptions={{ exact: item.to === '/' || item.to === '/account' }} activeProps={{ 'aria-current': 'page' }}>
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" className="page" tabIndex={-1}>
        {signOutError !== undefined && <ErrorPanel error={signOutError} />}
        {children}
      </main>
    </div>
  );
}

/** For the pages of the admin area: others see why they cannot use it (the server refuses them anyway). */
export function AdminOnly({ children }: { children: ReactNode }) {
  const session = useSession();
  if (!session.user.admin)
    return (
      <div className="state error" role="alert">
        <h1>Administrators only</h1>
        <p>
          This page is for administrators. Your own data is under <Link to="/account">My account</Link>.
        </p>
      </div>
    );
  return <>{children}</>;
}
