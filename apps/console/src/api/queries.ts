import { queryOptions } from '@tanstack/react-query';
import { api, setCsrfToken, unwrap } from './client';
import type { components, operations } from './schema';

type TaskStatus = components['schemas']['TaskViewDto']['status'];
type ApprovalStatus = components['schemas']['ApprovalViewDto']['status'];
type AuditFilters = Omit<NonNullable<operations['adminAudit_list']['parameters']['query']>, 'cursor' | 'limit'>;

/**
 * The console's reads, each a query's key and how to fetch it, in one place: a page reads through
 * them, and its route starts the first page's read as soon as the address is known (its loader), in
 * parallel with the session and the page's own code rather than after them.
 */
export const queries = {
  session: () =>
    queryOptions({
      queryKey: ['console-session'],
      queryFn: async () => {
        const session = await unwrap(api.GET('/api/console/session'));
        setCsrfToken(session.csrfToken);
        return session;
      },
      staleTime: 60_000,
    }),
  overview: () => queryOptions({ queryKey: ['overview'], queryFn: () => unwrap(api.GET('/admin/overview')), refetchInterval: 30_000 }),
  users: (q: string | undefined, cursor?: string) =>
    queryOptions({ queryKey: ['admin-users', q, cursor], queryFn: () => unwrap(api.GET('/admin/users', { params: { query: { q, cursor } } })) }),
  user: (id: string) => queryOptions({ queryKey: ['admin-user', id], queryFn: () => unwrap(api.GET('/admin/users/{id}', { params: { path: { id } } })) }),
  /**
   * The caller's memories, or a user's (`userId`, for an admin): current ones, or every version
   * (`includeHistory`); a search (`q`) answers one page.
   */
  memories: (userId: string | undefined, q: string | undefined, includeHistory: boolean, cursor?: string) =>
    queryOptions({
      queryKey: ['memories', userId ?? 'me', q, includeHistory, cursor],
      queryFn: () => {
        const query = { q, cursor: q ? undefined : cursor, ...(includeHistory ? { includeHistory } : {}) };
        return unwrap(
          userId ? api.GET('/admin/users/{userId}/memories', { params: { path: { userId }, query } }) : api.GET('/api/memories', { params: { query } }),
        );
      },
    }),
  /** The versions of the fact a memory states, newest first (one page holds any chain a person keeps). */
  memoryHistory: (userId: string | undefined, id: string) =>
    queryOptions({
      queryKey: ['memories', userId ?? 'me', 'history', id],
      queryFn: () =>
        unwrap(
          userId
            ? api.GET('/admin/users/{userId}/memories/{id}/history', { params: { path: { userId, id }, query: { limit: 100 } } })
            : api.GET('/api/memories/{id}/history', { params: { path: { id }, query: { limit: 100 } } }),
        ),
    }),
  files: (userId: string | undefined, cursor?: string) =>
    queryOptions({
      queryKey: ['files', userId ?? 'me', cursor],
      queryFn: () =>
        unwrap(
          userId
            ? api.GET('/admin/users/{userId}/files', { params: { path: { userId }, query: { cursor } } })
            : api.GET('/api/files', { params: { query: { cursor } } }),
        ),
    }),
  /** Every user's tasks (`everyone`, for an admin), or the caller's. */
  tasks: (everyone: boolean, status: TaskStatus | undefined, cursor?: string) =>
    queryOptions({
      queryKey: ['tasks', everyone ? 'all' : 'me', status, cursor],
      queryFn: (): Promise<{
        items: (components['schemas']['TaskViewDto'] & { ownerUserId?: string | null; ownerEmail?: string | null })[];
        nextCursor: string | null;
      }> =>
        unwrap(
          everyone ? api.GET('/admin/tasks', { params: { query: { status, cursor } } }) : api.GET('/api/tasks', { params: { query: { status, cursor } } }),
        ),
      refetchInterval: 10_000,
    }),
  /** Approval requests, newest first; `pending`: the approvers' queue. */
  approvals: (status: ApprovalStatus | undefined, cursor?: string) =>
    queryOptions({
      queryKey: ['approvals', status, cursor],
      queryFn: () => unwrap(api.GET('/admin/approvals', { params: { query: { status, cursor } } })),
      refetchInterval: 10_000,
    }),
  audit: (filters: AuditFilters, cursor?: string) =>
    queryOptions({ queryKey: ['audit', filters, cursor], queryFn: () => unwrap(api.GET('/admin/audit', { params: { query: { ...filters, cursor } } })) }),
  tools: (agent: string | undefined) =>
    queryOptions({ queryKey: ['tools', agent], queryFn: () => unwrap(api.GET('/api/tools', { params: { query: { agent } } })) }),
};
