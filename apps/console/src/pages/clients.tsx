import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ApiError, api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ConfirmButton } from '../components/confirm';
import { PagedTable, type Column } from '../components/data-table';
import { When } from '../components/format';
import { useCursorPages } from '../components/pager';
import { AdminOnly } from '../components/shell';
import { Empty, ErrorPanel } from '../components/states';

type Client = components['schemas']['AdminOAuthClientDto'];
type Connection = components['schemas']['AdminConnectionDto'];

export const VerifiedBadge = ({ verified }: { verified: boolean }) =>
  verified ? <span className="badge ok">verified</span> : <span className="badge warn">unverified</span>;

const CLIENT_COLUMNS: Column<Client>[] = [
  {
    header: 'Client',
    wrap: true,
    cell: (client) => (
      <>
        {client.name} <VerifiedBadge verified={client.verified} />
        <div className="muted">
          <code>{client.clientId}</code>
        </div>
      </>
    ),
  },
  { header: 'Kind', cell: (client) => (client.kind === 'registered' ? 'registered (DCR)' : 'metadata document (CIMD)') },
  { header: 'Active connections', numeric: true, cell: (client) => client.activeConnections },
  { header: 'Since', cell: (client) => <When at={client.createdAt} /> },
  { header: 'Last used', cell: (client) => <When at={client.lastUsedAt} empty="never" /> },
];

/** The MCP clients the built-in authorization server knows, and every user's grants to them, which an admin may revoke. */
export default function ClientsPage() {
  return (
    <AdminOnly>
      <h1>Connected clients</h1>
      <Clients />
      <Connections />
    </AdminOnly>
  );
}

function Clients() {
  const pages = useCursorPages('clients');
  const clients = useQuery({
    queryKey: ['oauth-clients', pages.cursor],
    queryFn: () => unwrap(api.GET('/admin/oauth-clients', { params: { query: { cursor: pages.cursor } } })),
    placeholderData: keepPreviousData,
  });
  // Without the built-in authorization server (OAUTH_MODE=external) the route does not exist.
  if (clients.error instanceof ApiError && clients.error.status === 404)
    return <Empty>This server is not an authorization server (OAUTH_MODE=external): clients sign in at your identity provider, which keeps their list.</Empty>;
  return (
    <section aria-labelledby="clients-heading">
      <h2 id="clients-heading">Clients</h2>
      <PagedTable
        query={clients}
        pages={pages}
        label="Clients"
        empty="No client has registered or signed anyone in yet."
        columns={CLIENT_COLUMNS}
        rowKey={(client) => client.clientId}
      />
    </section>
  );
}

function Connections() {
  const queryClient = useQueryClient();
  const pages = useCursorPages('connections');
  const connections = useQuery({
    queryKey: ['all-connections', pages.cursor],
    queryFn: () => unwrap(api.GET('/admin/connections', { params: { query: { cursor: pages.cursor } } })),
    placeholderData: keepPreviousData,
  });
  const revoke = useMutation({
    mutationFn: (connection: Connection) =>
      unwrap(api.DELETE('/admin/users/{id}/connections/{connectionId}', { params: { path: { id: connection.userId, connectionId: connection.id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['all-connections'] }),
  });
  const columns: Column<Connection>[] = [
    {
      header: 'User',
      wrap: true,
      cell: (connection) => (
        <Link to="/users/$userId" params={{ userId: connection.userId }}>
          {connection.userEmail ?? connection.userId}
        </Link>
      ),
    },
    {
      header: 'Client',
      wrap: true,
      cell: (connection) => (
        <>
          {connection.clientName} <VerifiedBadge verified={connection.verified} />
        </>
      ),
    },
    { header: 'Scopes', cell: (connection) => (connection.scopes.length ? connection.scopes.join(' ') : <span className="muted">all tools</span>) },
    { header: 'Connected', cell: (connection) => <When at={connection.createdAt} /> },
    { header: 'Last used', cell: (connection) => <When at={connection.lastUsedAt} empty="never" /> },
    {
      header: 'State',
      cell: (connection) =>
        connection.revokedAt ? (
          <span className="badge danger">revoked</span>
        ) : (
          <ConfirmButton
            label="Revoke"
            title={`Revoke ${connection.clientName} for ${connection.userEmail ?? 'this user'}?`}
            onConfirm={() => revoke.mutateAsync(connection)}
          >
            <p>Its tokens stop working at once, on every instance.</p>
          </ConfirmButton>
        ),
    },
  ];
  return (
    <section aria-labelledby="grants-heading">
      <h2 id="grants-heading">Users' connections</h2>
      {revoke.error && <ErrorPanel error={revoke.error} />}
      <PagedTable
        query={connections}
        pages={pages}
        label="Users' connections"
        empty="No user has connected a client by signing in."
        columns={columns}
        rowKey={(connection) => connection.id}
      />
    </section>
  );
}
