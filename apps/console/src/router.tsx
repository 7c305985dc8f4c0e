import { lazy, Suspense, type ComponentType } from 'react';
import { createRootRoute, createRoute, createRouter, Link, Outlet, useMatchRoute } from '@tanstack/react-router';
import { Shell } from './components/shell';
import { Loading } from './components/states';
import { LinkSignInPage } from './pages/sign-in';
import { prefetch, queryClient } from './api/query-client';
import { queries } from './api/queries';
import { SignedIn } from './session';

/** A page loaded when first opened, so that the first load carries only the frame. */
function page(load: () => Promise<{ default: ComponentType }>) {
  const Page = lazy(load);
  return function LazyPage() {
    return (
      <Suspense fallback={<Loading />}>
        <Page />
      </Suspense>
    );
  };
}

/** The string search parameters a page reads; anything else in the address is dropped. */
function stringParams<K extends string>(...keys: K[]) {
  return (search: Record<string, unknown>): Partial<Record<K, string>> =>
    Object.fromEntries(keys.flatMap((key) => (typeof search[key] === 'string' && search[key] !== '' ? [[key, search[key]]] : []))) as Partial<
      Record<K, string>
    >;
}

function Root() {
  const matchRoute = useMatchRoute();
  // The one-time link signs in: it is the one page shown without a session.
  if (matchRoute({ to: '/sign-in/link' })) return <Outlet />;
  return (
    <SignedIn>
      <Shell>
        <Outlet />
      </Shell>
    </SignedIn>
  );
}

function NotFound() {
  return (
    <div className="state">
      <h1>No such page</h1>
      <p>
        Nothing is at this address. Go to the <Link to="/">start page</Link>.
      </p>
    </div>
  );
}

const root = createRootRoute({
  component: Root,
  notFoundComponent: NotFound,
  // Who is signed in is asked for as the address is read, before anything renders.
  loader: () => void queryClient.prefetchQuery(queries.session()),
});
const child = <Path extends string>(path: Path) => ({ getParentRoute: () => root, path });

// Each page's code, fetched when its address is opened (or a link to it is pointed at).
const pages = {
  overview: () => import('./pages/overview'),
  users: () => import('./pages/users'),
  user: () => import('./pages/user'),
  memories: () => import('./pages/memories'),
  files: () => import('./pages/files'),
  allFiles: () => import('./pages/files').then((module) => ({ default: module.AllFilesPage })),
  clients: () => import('./pages/clients'),
  tasks: () => import('./pages/tasks'),
  approvals: () => import('./pages/approvals'),
  tools: () => import('./pages/tools'),
  audit: () => import('./pages/audit'),
  account: () => import('./pages/account'),
};

/** A route's loader: its page's code and first read start at once, side by side, and nothing waits for them. */
const starts =
  <Input,>(load: () => Promise<unknown>, read?: (input: Input) => void) =>
  (input: Input) => {
    void load();
    read?.(input);
  };

const routeTree = root.addChildren([
  createRoute({ ...child('/'), component: page(pages.overview), loader: starts(pages.overview, () => prefetch(queries.overview, true)) }),
  createRoute({ ...child('/sign-in/link'), component: LinkSignInPage }),
  createRoute({
    ...child('/users'),
    component: page(pages.users),
    validateSearch: stringParams('q'),
    loaderDeps: ({ search }) => search,
    loader: starts(pages.users, ({ deps }: { deps: { q?: string } }) => prefetch(() => queries.users(deps.q), true)),
  }),
  createRoute({
    ...child('/users/$userId'),
    component: page(pages.user),
    loader: starts(pages.user, ({ params }: { params: { userId: string } }) => prefetch(() => queries.user(params.userId), true)),
  }),
  createRoute({
    ...child('/users/$userId/memories'),
    component: page(pages.memories),
    validateSearch: stringParams('q', 'history'),
    loaderDeps: ({ search }) => search,
    loader: starts(pages.memories, ({ params, deps }: { params: { userId: string }; deps: { q?: string; history?: string } }) =>
      prefetch(() => queries.memories(params.userId, deps.q, deps.history === 'all'), true),
    ),
  }),
  createRoute({
    ...child('/users/$userId/files'),
    component: page(pages.files),
    loader: starts(pages.files, ({ params }: { params: { userId: string } }) => prefetch(() => queries.files(params.userId), true)),
  }),
  createRoute({ ...child('/clients'), component: page(pages.clients), loader: starts(pages.clients) }),
  createRoute({ ...child('/files'), component: page(pages.allFiles), validateSearch: stringParams('extraction'), loader: starts(pages.allFiles) }),
  createRoute({ ...child('/tasks'), component: page(pages.tasks), validateSearch: stringParams('status'), loader: starts(pages.tasks) }),
  createRoute({ ...child('/approvals'), component: page(pages.approvals), validateSearch: stringParams('status'), loader: starts(pages.approvals) }),
  createRoute({
    ...child('/tools'),
    component: page(pages.tools),
    validateSearch: stringParams('agent', 'tool'),
    loaderDeps: ({ search }) => search,
    loader: starts(pages.tools, ({ deps }: { deps: { agent?: string } }) => prefetch(() => queries.tools(deps.agent))),
  }),
  createRoute({
    ...child('/audit'),
    component: page(pages.audit),
    validateSearch: stringParams('actor', 'action', 'target', 'from', 'to'),
    loader: starts(pages.audit),
  }),
  createRoute({ ...child('/account'), component: page(pages.account), loader: starts(pages.account) }),
  createRoute({
    ...child('/account/memories'),
    component: page(pages.memories),
    validateSearch: stringParams('q', 'history'),
    loaderDeps: ({ search }) => search,
    loader: starts(pages.memories, ({ deps }: { deps: { q?: string; history?: string } }) =>
      prefetch(() => queries.memories(undefined, deps.q, deps.history === 'all')),
    ),
  }),
  createRoute({
    ...child('/account/files'),
    component: page(pages.files),
    validateSearch: stringParams('extraction'),
    loader: starts(pages.files, () => prefetch(() => queries.files(undefined))),
  }),
  createRoute({ ...child('/account/tasks'), component: page(pages.tasks), validateSearch: stringParams('status'), loader: starts(pages.tasks) }),
]);

export const router = createRouter({ routeTree, basepath: '/console', defaultPreload: 'intent', scrollRestoration: true });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
