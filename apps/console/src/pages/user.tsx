import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { api, download, unwrap } from '../api/client';
import { queries } from '../api/queries';
import { ConfirmButton } from '../components/confirm';
import { When } from '../components/format';
import { Pager, useCursorPages } from '../components/pager';
import { AdminOnly } from '../components/shell';
import { ErrorPanel, QueryState } from '../components/states';
import { useSession } from '../session';
import { ConnectionTable, SecretTable } from '../components/credentials';

const route = getRouteApi('/users/$userId');

/** One user: identity, roles, activity, what each lib holds for them; disable, export, erase; their connections and MCP secrets. */
export default function UserPage() {
  const { userId } = route.useParams();
  const session = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [exportError, setExportError] = useState<unknown>();
  const path = { params: { path: { id: userId } } };
  const user = useQuery(queries.user(userId));
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin-user', userId] });
  const setDisabled = useMutation({
    mutationFn: (disabled: boolean) => unwrap(disabled ? api.POST('/admin/users/{id}/disable', path) : api.POST('/admin/users/{id}/enable', path)),
    onSettled: refresh,
  });
  const erase = useMutation({
    mutationFn: () => unwrap(api.DELETE('/admin/users/{id}', path)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['admin-users'] });
      await navigate({ to: '/users' });
    },
  });
  return (
    <AdminOnly>
      <p>
        <Link to="/users">← Users</Link>
      </p>
      <QueryState query={user}>
        {(user) => (
          <>
            <h1>{user.email ?? user.name ?? user.subject}</h1>
            <div className="cards">
              <section className="card" aria-labelledby="identity-heading">
                <h2 id="identity-heading">Identity</h2>
                <dl className="facts">
                  <dt>Name</dt>
                  <dd>{user.name ?? '—'}</dd>
                  <dt>E-mail</dt>
                  <dd>{user.email ?? '—'}</dd>
                  <dt>Subject</dt>
                  <dd>
                    <code>{user.subject}</code>
                  </dd>
                  <dt>Issuer</dt>
                  <dd>
                    <code>{user.issuer}</code>
                  </dd>
                  <dt>Roles</dt>
                  <dd>{user.roles.length ? user.roles.join(', ') : 'none'}</dd>
                  <dt>Id</dt>
                  <dd>
                    <code>{user.id}</code>
                  </dd>
                </dl>
              </section>
              <section className="card" aria-labelledby="activity-heading">
                <h2 id="activity-heading">Activity</h2>
                <dl className="facts">
                  <dt>First seen</dt>
                  <dd>
                    <When at={user.createdAt} />
                  </dd>
                  <dt>Last seen</dt>
                  <dd>
                    <When at={user.lastSeenAt} empty="never" />
                  </dd>
                  <dt>State</dt>
                  <dd>
                    {user.disabledAt ? (
                      <span className="badge danger">
                        disabled <When at={user.disabledAt} />
                      </span>
                    ) : (
                      <span className="badge ok">active</span>
                    )}
                  </dd>
                </dl>
              </section>
              <section className="card" aria-labelledby="holdings-heading">
                <h2 id="holdings-heading">What the server holds</h2>
                <dl className="facts">
                  {Object.entries(user.counts).map(([part, count]) => (
                    <Fact key={part} term={part} value={count} />
                  ))}
                </dl>
                <p className="actions">
                  <Link to="/users/$userId/memories" params={{ userId }}>
                    Memories
                  </Link>
                  <Link to="/users/$userId/files" params={{ userId }}>
                    Files
                  </Link>
                  <Link to="/audit" search={{ target: userId }}>
                    Audit trail
                  </Link>
                </p>
              </section>
            </div>
            <div className="actions">
              {user.disabledAt ? (
                <button type="button" onClick={() => setDisabled.mutate(false)} disabled={setDisabled.isPending}>
                  Enable account
                </button>
              ) : (
                user.id !== session.user.id && (
                  <ConfirmButton label="Disable account" title="Disable this account?" onConfirm={() => setDisabled.mutateAsync(true)}>
                    <p>Every token, MCP secret, connection and console session of this user is refused from now on, on every instance.</p>
                  </ConfirmButton>
                )
              )}
              <button
                type="button"
                onClick={() => {
                  setExportError(undefined);
                  download(`/admin/users/${encodeURIComponent(userId)}/export`, `mirobody-export-${userId}.json`).catch(setExportError);
                }}
              >
                Export data
              </button>
              {user.id !== session.user.id && (
                <ConfirmButton
                  label="Erase user"
                  title="Erase this user and all their data?"
                  typed={user.email ?? user.id}
                  confirmLabel="Erase"
                  onConfirm={() => erase.mutateAsync()}
                >
                  <p>Memories, files, health records, connections and secrets are erased now; the audit trail keeps who it was. This cannot be undone.</p>
                </ConfirmButton>
              )}
            </div>
            {[setDisabled.error, erase.error, exportError].map((error, index) => (error ? <ErrorPanel key={index} error={error} /> : null))}
            <UserConnections userId={userId} />
            <UserSecrets userId={userId} />
          </>
        )}
      </QueryState>
    </AdminOnly>
  );
}

function Fact({ term, value }: { term: string; value: number }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{value}</dd>
    </>
  );
}

function UserConnections({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const connections = useQuery({
    queryKey: ['admin-user-connections', userId],
    queryFn: () => unwrap(api.GET('/admin/users/{id}/connections', { params: { path: { id: userId } } })),
  });
  const revoke = useMutation({
    mutationFn: (connectionId: string) =>
      unwrap(api.DELETE('/admin/users/{id}/connections/{connectionId}', { params: { path: { id: userId, connectionId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['admin-user-connections', userId] }),
  });
  return (
    <section aria-labelledby="user-connections-heading">
      <h2 id="user-connections-heading">Connected clients</h2>
      {revoke.error && <ErrorPanel error={revoke.error} />}
      <QueryState query={connections} isEmpty={(data) => data.connections.length === 0} empty="No client connected by signing in.">
        {(data) => <ConnectionTable connections={data.connections} onRevoke={(id) => revoke.mutateAsync(id)} />}
      </QueryState>
    </section>
  );
}

function UserSecrets({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const pages = useCursorPages(userId);
  const secrets = useQuery({
    queryKey: ['admin-user-secrets', userId, pages.cursor],
    queryFn: () => unwrap(api.GET('/admin/users/{id}/mcp-secrets', { params: { path: { id: userId }, query: { cursor: pages.cursor } } })),
  });
  const revoke = useMutation({
    mutationFn: (secretId: string) => unwrap(api.DELETE('/admin/users/{id}/mcp-secrets/{secretId}', { params: { path: { id: userId, secretId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['admin-user-secrets', userId] }),
  });
  return (
    <section aria-labelledby="user-secrets-heading">
      <h2 id="user-secrets-heading">MCP secrets</h2>
      {revoke.error && <ErrorPanel error={revoke.error} />}
      <QueryState query={secrets} isEmpty={(data) => data.items.length === 0} empty="No MCP secret.">
        {(data) => (
          <>
            <SecretTable secrets={data.items} onRevoke={(id) => revoke.mutateAsync(id)} />
            <Pager pages={pages} nextCursor={data.nextCursor} label="MCP secrets" />
          </>
        )}
      </QueryState>
    </section>
  );
}
