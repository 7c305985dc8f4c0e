import { QueryClient, type FetchQueryOptions, type QueryKey } from '@tanstack/react-query';
import { ApiError } from './client';
import { queries } from './queries';

/** The console's one cache of what the API answered. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) will not change by asking again; a network failure or a 5xx may.
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
      // A page opened again shows what it had at once and asks again: an admin's lists change under them.
      staleTime: 0,
    },
  },
});

/**
 * Starts a page's first read as soon as its address is known, once the session (asked for at the
 * same time) says the caller may make it; never waited for: the page shows its own loading state.
 */
export function prefetch<Data, Key extends QueryKey>(read: () => FetchQueryOptions<Data, Error, Data, Key>, adminsOnly = false): void {
  void queryClient
    .ensureQueryData(queries.session())
    .then((session) => (adminsOnly && !session.user.admin ? undefined : queryClient.prefetchQuery(read())))
    .catch(() => undefined);
}
