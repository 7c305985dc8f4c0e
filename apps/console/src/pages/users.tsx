import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { queries } from '../api/queries';
import type { components } from '../api/schema';
import { PagedTable, type Column } from '../components/data-table';
import { When } from '../components/format';
import { useCursorPages } from '../components/pager';
import { SearchForm } from '../components/search-form';
import { AdminOnly } from '../components/shell';

const route = getRouteApi('/users');

const COLUMNS: Column<components['schemas']['AdminUserDto']>[] = [
  {
    header: 'User',
    wrap: true,
    cell: (user) => (
      <>
        <Link to="/users/$userId" params={{ userId: user.id }}>
          {user.email ?? user.name ?? user.subject}
        </Link>
        <div className="muted">{user.name && user.email ? user.name : `${user.subject} @ ${user.issuer}`}</div>
      </>
    ),
  },
  { header: 'Roles', cell: (user) => (user.roles.length ? user.roles.join(', ') : <span className="muted">none</span>) },
  { header: 'Last seen', cell: (user) => <When at={user.lastSeenAt} empty="never" /> },
  { header: 'Since', cell: (user) => <When at={user.createdAt} /> },
  { header: 'State', cell: (user) => (user.disabledAt ? <span className="badge danger">disabled</span> : <span className="badge ok">active</span>) },
];

/** Every user, oldest first by pages, or those whose e-mail, name or subject holds the search. */
export default function UsersPage() {
  const { q } = route.useSearch();
  const navigate = useNavigate();
  const pages = useCursorPages(q ?? '');
  const users = useQuery({ ...queries.users(q, pages.cursor), placeholderData: keepPreviousData });
  return (
    <AdminOnly>
      <h1>Users</h1>
      <SearchForm
        label="Search users"
        value={q}
        placeholder="e-mail, name or subject"
        onSearch={(query) => void navigate({ to: '/users', search: { q: query } })}
      />
      <PagedTable
        query={users}
        pages={pages}
        label="Users"
        empty={q ? `No user matches "${q}".` : 'No user has signed in yet.'}
        columns={COLUMNS}
        rowKey={(user) => user.id}
      />
    </AdminOnly>
  );
}
