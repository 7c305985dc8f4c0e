import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { cursorKey, decodeCursor, instantKeySql, toPage, type Page } from '@app/common';
import { RegisteredClientEntity } from '../clients/registered-client.entity.js';

/** `registered`: it registered itself (DCR); `metadata-document`: its id is the URL of its metadata document (CIMD). */
export type ClientKind = 'registered' | 'metadata-document';

/** A client the authorization server knows, as the admin area lists it. */
export interface KnownClientView {
  clientId: string;
  name: string;
  kind: ClientKind;
  verified: boolean;
  /** A registered client's; null for a metadata-document client, whose document (at its id) holds them and is not stored. */
  redirectUris: string[] | null;
  createdAt: Date;
  /** When a registered client's registration lapses unless a user signs in with it; null for a metadata-document client. */
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  activeConnections: number;
}

interface Row {
  client_id: string;
  kind: ClientKind;
  name: string;
  redirect_uris: string[] | null;
  created_at: Date | string;
  expires_at: Date | string | null;
  last_used_at: Date | string | null;
  active_connections: number;
  created_key: string;
}

/** Newest first: when the server first knew the client, to the microsecond, then its id. */
const KEYSET = [cursorKey.instant, cursorKey.text] as const;

/**
 * Who knows the clients: a registered client is a row of `oauth_clients` until its registration
 * lapses (`OAUTH_CLIENT_LIFETIME` after its latest sign-in); a metadata-document client is stored
 * nowhere but in the connections users made with it, so the server knows it from its first
 * connection on, under the name its document gave at the latest. Use is read from the connections
 * (the auth lib's table, in SQL): a sign-in makes one, a refresh sets its `last_used_at`.
 */
const KNOWN_CLIENTS_SQL = `
  WITH usage AS (
    SELECT connection.client_id,
           min(connection.created_at) AS first_connected_at,
           max(GREATEST(connection.created_at, connection.last_used_at)) AS last_used_at,
           count(*) FILTER (WHERE connection.revoked_at IS NULL)::int AS active_connections,
           (array_agg(connection.client_name ORDER BY connection.created_at DESC))[1] AS latest_name
    FROM oauth_connections connection
    GROUP BY connection.client_id
  ), known AS (
    SELECT id AS client_id, 'registered' AS kind, client_name AS name, redirect_uris, created_at, expires_at
    FROM oauth_clients
    WHERE expires_at > now()
    UNION ALL
    SELECT client_id, 'metadata-document', latest_name, NULL, first_connected_at, NULL
    FROM usage
    WHERE client_id ~ '^https?://'
  )
  SELECT known.*, usage.last_used_at, COALESCE(usage.active_connections, 0) AS active_connections,
         ${instantKeySql('known.created_at')} AS created_key
  FROM known LEFT JOIN usage USING (client_id)`;

/** The clients of the built-in authorization server, for the admin area. */
@Injectable()
export class KnownClients {
  constructor(@InjectRepository(RegisteredClientEntity) private readonly registered: Repository<RegisteredClientEntity>) {}

  async list(limit: number, cursor?: string): Promise<Page<KnownClientView>> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor, KEYSET);
    const rows: Row[] = await this.registered.query(
      `${KNOWN_CLIENTS_SQL}
       ${after ? 'WHERE (known.created_at, known.client_id) < (CAST($2 AS timestamptz), $3)' : ''}
       ORDER BY known.created_at DESC, known.client_id DESC
       LIMIT $1`,
      after ? [limit + 1, ...after] : [limit + 1],
    );
    return toPage(rows, limit, KEYSET, (row) => [row.created_key, row.client_id], view);
  }
}

const dateOrNull = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

function view(row: Row): KnownClientView {
  return {
    clientId: row.client_id,
    name: row.name,
    kind: row.kind,
    // A document fetched over https is its host's word; a registered client's name is its own.
    verified: row.kind === 'metadata-document' && row.client_id.startsWith('https://'),
    redirectUris: row.redirect_uris,
    createdAt: new Date(row.created_at),
    expiresAt: dateOrNull(row.expires_at),
    lastUsedAt: dateOrNull(row.last_used_at),
    activeConnections: row.active_connections,
  };
}
