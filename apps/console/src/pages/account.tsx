import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, download, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ConfirmButton } from '../components/confirm';
import { ConnectionTable, SecretTable } from '../components/credentials';
import { When } from '../components/format';
import { Pager, useCursorPages } from '../components/pager';
import { ErrorPanel, QueryState } from '../components/states';
import { useSession } from '../session';

/** My account: who I am, the clients I connected, my MCP secrets, my data to take away, and deleting it all. */
export default function AccountPage() {
  const session = useSession();
  const [exportError, setExportError] = useState<unknown>();
  const erase = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/me')),
    onSuccess: () => window.location.assign('/console/'),
  });
  return (
    <>
      <h1>My account</h1>
      <section className="card" aria-labelledby="me-heading">
        <h2 id="me-heading">Signed in as</h2>
        <dl className="facts">
          <dt>Name</dt>
          <dd>{session.user.name ?? '—'}</dd>
          <dt>E-mail</dt>
          <dd>{session.user.email ?? '—'}</dd>
          <dt>Roles</dt>
          <dd>{session.user.roles.length ? session.user.roles.join(', ') : 'none'}</dd>
          <dt>Session ends</dt>
          <dd>
            <When at={session.expiresAt} empty="with your token" />
          </dd>
        </dl>
        <p className="actions">
          <Link to="/account/memories">My memories</Link>
          <Link to="/account/files">My files</Link>
          <Link to="/account/tasks">My tasks</Link>
        </p>
      </section>
      <MyConnections />
      <MySecrets />
      <section className="card" aria-labelledby="data-heading">
        <h2 id="data-heading">My data</h2>
        <p>Everything the server holds about you, as one JSON file: memories, files' descriptions, health records, connections and more.</p>
        {exportError !== undefined && <ErrorPanel error={exportError} />}
        <div className="actions">
          <button
            type="button"
            onClick={() => {
              setExportError(undefined);
              download('/api/me/export', 'mirobody-export.json').catch(setExportError);
            }}
          >
            Download my data
          </button>
          <ConfirmButton
            label="Delete my account"
            title="Delete your account?"
            typed={session.user.email ?? 'delete my account'}
            confirmLabel="Delete everything"
            onConfirm={() => erase.mutateAsync()}
          >
            <p>Your memories, files, health records, connections and MCP secrets are erased now. This cannot be undone.</p>
          </ConfirmButton>
        </div>
        {erase.error && <ErrorPanel error={erase.error} />}
      </section>
    </>
  );
}

function MyConnections() {
  const queryClient = useQueryClient();
  const connections = useQuery({ queryKey: ['my-connections'], queryFn: () => unwrap(api.GET('/api/me/connections')) });
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/me/connections/{id}', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['my-connections'] }),
  });
  return (
    <section className="card" aria-labelledby="connections-heading">
      <h2 id="connections-heading">Connected clients</h2>
      <p className="muted">Clients you connected by signing in (Claude, ChatGPT, Cursor…). Revoking one stops its tokens at once.</p>
      {revoke.error && <ErrorPanel error={revoke.error} />}
      <QueryState query={connections} isEmpty={(data) => data.connections.length === 0} empty="You have connected no client by signing in.">
        {(data) => <ConnectionTable connections={data.connections} onRevoke={(id) => revoke.mutateAsync(id)} />}
      </QueryState>
    </section>
  );
}

function MySecrets() {
  const queryClient = useQueryClient();
  const pages = useCursorPages('secrets');
  const secrets = useQuery({
    queryKey: ['my-secrets', pages.cursor],
    queryFn: () => unwrap(api.GET('/api/mcp-secrets', { params: { query: { cursor: pages.cursor } } })),
  });
  const [created, setCreated] = useState<components['schemas']['CreatedSecretDto']>();
  const create = useMutation({
    mutationFn: (body: components['schemas']['NewSecretDto']) => unwrap(api.POST('/api/mcp-secrets', { body })),
    onSuccess: (secret) => setCreated(secret),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['my-secrets'] }),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/mcp-secrets/{id}', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['my-secrets'] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const agent = String(form.get('agent') ?? '').trim();
    setCreated(undefined);
    create.mutate({ label: String(form.get('label') ?? ''), ...(agent ? { agent } : {}) });
  };
  return (
    <section className="card" aria-labelledby="secrets-heading">
      <h2 id="secrets-heading">MCP secrets</h2>
      <p className="muted">For MCP clients that cannot sign in: paste the secret (or its URL) into the client. It is shown once.</p>
      <form className="toolbar" onSubmit={submit}>
        <label>
          Label
          <input name="label" required maxLength={200} placeholder="laptop" />
        </label>
        <label>
          Agent (optional)
          <input name="agent" maxLength={200} placeholder="cursor" />
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create secret
        </button>
      </form>
      {create.error && <ErrorPanel error={create.error} />}
      {created && (
        <div className="notice" role="status">
          <p>
            <strong>Copy it now: it will not be shown again.</strong>
          </p>
          <dl className="facts">
            <dt>Secret</dt>
            <dd>
              <code data-testid="created-secret">{created.secret}</code>
            </dd>
            <dt>URL</dt>
            <dd>
              <code>{created.url}</code>
            </dd>
          </dl>
        </div>
      )}
      {revoke.error && <ErrorPanel error={revoke.error} />}
      <QueryState query={secrets} isEmpty={(data) => data.items.length === 0} empty="You have no MCP secret.">
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
