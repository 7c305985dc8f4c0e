import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { cursorKey, decodeCursor, instantKeySql, NotFoundError, toPage, type Page, type UserInfo } from '@app/common';
import { McpSecretEntity } from '../identity/secrets/mcp-secret.entity.js';
import type { SecretSummary } from '../identity/secrets/mcp-secrets.service.js';
import { AdminUsers } from './admin-users.service.js';

/** What an admin sees of a secret: what its owner sees (never the secret nor its hash), revoked ones too. */
export interface AdminSecretView extends SecretSummary {
  revokedAt: Date | null;
}

/** Newest first: the creation time to the microsecond, then the id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;

/** A user's MCP secrets, for the admin area: every one, revoked ones included, and revoking one; both on the audit trail. */
@Injectable()
export class AdminSecrets {
  constructor(
    @InjectRepository(McpSecretEntity) private readonly secrets: Repository<McpSecretEntity>,
    private readonly users: AdminUsers,
  ) {}

  /** A cursor the list did not issue is refused (400) before the user is looked for, as on every list. */
  async list(admin: UserInfo, user: string, limit: number, cursor?: string): Promise<Page<AdminSecretView>> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor, KEYSET);
    const userId = await this.users.audited(admin, user, 'mcp_secrets.list');
    // Column by column, so that the hash is never read, and a column added later is not shown by accident.
    const query = this.secrets
      .createQueryBuilder('secret')
      .select(['secret.id', 'secret.label', 'secret.agent', 'secret.createdAt', 'secret.expiresAt', 'secret.lastUsedAt', 'secret.revokedAt'])
      .addSelect(instantKeySql('"secret"."created_at"'), 'created_key')
      .where('secret.userId = :userId', { userId })
      .orderBy('secret.createdAt', 'DESC')
      .addOrderBy('secret.id', 'DESC')
      .limit(limit + 1);
    if (after) {
      const [createdAt, id] = after;
      query.andWhere(`("secret"."created_at", "secret"."id") < (CAST(:createdAt AS timestamptz), CAST(:id AS uuid))`, { createdAt, id });
    }
    const { entities, raw } = await query.getRawAndEntities<{ created_key: string }>();
    return toPage(
      entities,
      limit,
      KEYSET,
      (secret, index) => [raw[index]!.created_key, secret.id],
      ({ id, label, agent, createdAt, expiresAt, lastUsedAt, revokedAt }) => ({ id, label, agent, createdAt, expiresAt, lastUsedAt, revokedAt }),
    );
  }

  /**
   * Revokes one of the user's secrets as their own revoke does: every request looks the secret up,
   * so it is refused from the next one, on every instance. One already revoked stays so; 404 when
   * the user has no secret of that id. The attempt is on the audit trail either way, as it is made.
   */
  async revoke(admin: UserInfo, user: string, id: string): Promise<void> {
    const userId = await this.users.audited(admin, user, 'mcp_secret.revoke', { secretId: id });
    const revoked = await this.secrets.update({ id, userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    if (!revoked.affected && !(await this.secrets.existsBy({ id, userId }))) throw new NotFoundError('No such MCP secret');
  }
}
