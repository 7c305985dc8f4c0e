import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { cursorKey, decodeCursor, instantKeySql, toPage, type Page } from '@app/common';
import { ConnectionEntity } from '../identity/connections/connection.entity.js';

export interface ConnectionFilter {
  userId?: string;
  clientId?: string;
  /** True: only those not revoked; false: only revoked ones. */
  active?: boolean;
}

/** A connection as the admin area lists it: whose, which client, what it may do, when it was used. */
export interface AdminConnectionView {
  id: string;
  userId: string;
  userEmail: string | null;
  clientId: string;
  clientName: string;
  verified: boolean;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** Newest first: the creation time to the microsecond, then the id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;

/** Every user's connections of the built-in authorization server (none when it is off: only it makes them). */
@Injectable()
export class AdminConnections {
  constructor(@InjectRepository(ConnectionEntity) private readonly connections: Repository<ConnectionEntity>) {}

  async list({ userId, clientId, active }: ConnectionFilter, limit: number, cursor?: string): Promise<Page<AdminConnectionView>> {
    const query = this.connections
      .createQueryBuilder('connection')
      .leftJoin('connection.user', 'owner')
      .addSelect('owner.email', 'owner_email')
      .addSelect(instantKeySql('"connection"."created_at"'), 'created_key')
      .orderBy('connection.createdAt', 'DESC')
      .addOrderBy('connection.id', 'DESC')
      .limit(limit + 1);
    if (userId !== undefined) query.andWhere('connection.userId = :userId', { userId });
    if (clientId !== undefined) query.andWhere('connection.clientId = :clientId', { clientId });
    if (active !== undefined) query.andWhere(active ? 'connection.revokedAt IS NULL' : 'connection.revokedAt IS NOT NULL');
    if (cursor !== undefined) {
      const [createdAt, id] = decodeCursor(cursor, KEYSET);
      query.andWhere(`("connection"."created_at", "connection"."id") < (CAST(:createdAt AS timestamptz), CAST(:id AS uuid))`, { createdAt, id });
    }
    const { entities, raw } = await query.getRawAndEntities<{ owner_email: string | null; created_key: string }>();
    const rows = entities.map((connection, index) => ({ connection, extra: raw[index]! }));
    return toPage(
      rows,
      limit,
      KEYSET,
      ({ connection, extra }) => [extra.created_key, connection.id],
      ({ connection, extra }) => ({
        id: connection.id,
        userId: connection.userId,
        userEmail: extra.owner_email,
        clientId: connection.clientId,
        clientName: connection.clientName,
        verified: connection.clientVerified,
        scopes: connection.scope.split(' ').filter(Boolean),
        createdAt: connection.createdAt,
        lastUsedAt: connection.lastUsedAt,
        revokedAt: connection.revokedAt,
      }),
    );
  }
}
