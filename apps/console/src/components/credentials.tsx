import type { components } from '../api/schema';
import { ConfirmButton } from './confirm';
import { DataTable } from './data-table';
import { When } from './format';

type Connection = components['schemas']['ConnectionViewDto'];

/** What a user's MCP secret shows: never the secret. An admin's view also knows the revoked ones. */
interface Secret {
  id: string;
  label: string;
  agent: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt?: string | null;
}

/** A user's connected clients with their scopes and state; a live one can be revoked. */
export function ConnectionTable({ connections, onRevoke }: { connections: Connection[]; onRevoke: (id: string) => Promise<unknown> }) {
  return (
    <DataTable
      label="Connected clients"
      rows={connections}
      rowKey={(connection) => connection.id}
      columns={[
        {
          header: 'Client',
          wrap: true,
          cell: (connection) => (
            <>
              {connection.client_name}{' '}
              {connection.client_verified ? <span className="badge ok">verified</span> : <span className="badge warn">unverified</span>}
              <div className="muted">
                <code>{connection.client_id}</code>
              </div>
            </>
          ),
        },
        { header: 'Scopes', cell: (connection) => (connection.scopes.length ? connection.scopes.join(' ') : <span className="muted">all tools</span>) },
        { header: 'Connected', cell: (connection) => <When at={connection.created_at} /> },
        { header: 'Last used', cell: (connection) => <When at={connection.last_used_at} empty="never" /> },
        {
          header: 'State',
          cell: (connection) =>
            connection.revoked_at ? (
              <span className="badge danger">
                revoked <When at={connection.revoked_at} />
              </span>
            ) : (
              <ConfirmButton label="Revoke" title={`Revoke ${connection.client_name}?`} onConfirm={() => onRevoke(connection.id)}>
                <p>Its tokens stop working at once; it must sign in again to reconnect.</p>
              </ConfirmButton>
            ),
        },
      ]}
    />
  );
}

/** MCP secrets with their use; a live one can be revoked. */
export function SecretTable({ secrets, onRevoke }: { secrets: Secret[]; onRevoke: (id: string) => Promise<unknown> }) {
  return (
    <DataTable
      label="MCP secrets"
      rows={secrets}
      rowKey={(secret) => secret.id}
      columns={[
        { header: 'Label', wrap: true, cell: (secret) => secret.label },
        { header: 'Agent', cell: (secret) => secret.agent ?? '—' },
        { header: 'Created', cell: (secret) => <When at={secret.createdAt} /> },
        { header: 'Expires', cell: (secret) => <When at={secret.expiresAt} empty="never" /> },
        { header: 'Last used', cell: (secret) => <When at={secret.lastUsedAt} empty="never" /> },
        {
          header: 'State',
          cell: (secret) =>
            secret.revokedAt ? (
              <span className="badge danger">revoked</span>
            ) : secret.expiresAt && new Date(secret.expiresAt) < new Date() ? (
              <span className="badge warn">expired</span>
            ) : (
              <ConfirmButton label="Revoke" title={`Revoke "${secret.label}"?`} onConfirm={() => onRevoke(secret.id)}>
                <p>Clients using it are refused from now on.</p>
              </ConfirmButton>
            ),
        },
      ]}
    />
  );
}
