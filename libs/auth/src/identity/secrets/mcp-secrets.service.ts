import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, MoreThan, type Repository } from 'typeorm';
import { BackgroundWrites, ConflictError, cursorKey, decodeCursor, isUuid, toPage, type Page } from '@app/common';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../../auth.options.js';
import { generateSecret, hashSecret } from '../../credentials.js';
import { McpSecretEntity } from './mcp-secret.entity.js';
import type { UserEntity } from '../../users/user.entity.js';
import { UsersService } from '../../users/users.service.js';

export interface NewSecret {
  label: string;
  agent?: string;
  expiresAt?: Date;
}

/** What the owner sees of a secret: never the secret, nor its hash. */
export interface SecretSummary {
  id: string;
  label: string;
  agent: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/** Newest first: the creation time to the millisecond, then the id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;

/** Personal MCP secrets: issued once, stored as a hash, looked up on every request so a revocation acts at once. */
@Injectable()
export class McpSecretsService {
  constructor(
    @InjectRepository(McpSecretEntity) private readonly secrets: Repository<McpSecretEntity>,
    private readonly background: BackgroundWrites,
    private readonly users: UsersService,
    @Inject(AUTH_OPTIONS) private readonly options: Pick<AuthModuleOptions, 'mcpSecretsMaxPerUser'>,
  ) {}

  /**
   * 409 once the user holds `MCP_SECRETS_MAX_PER_USER` live secrets: one must be revoked (or expire)
   * first. The count and the insert run in one transaction holding the user's row, so requests
   * racing each other (on this instance or another) cannot both pass the count.
   */
  async create(userId: string, request: NewSecret): Promise<{ id: string; secret: string }> {
    const secret = generateSecret();
    const max = this.options.mcpSecretsMaxPerUser;
    const id = await this.secrets.manager.transaction(async (manager) => {
      const owner: unknown[] = await manager.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      if (owner.length === 0) {
        // The user was deleted while this process still knew their id.
        this.users.forget(userId);
        throw new UnauthorizedException('Your user record no longer exists: send your token again to have it re-created');
      }
      const secrets = manager.getRepository(McpSecretEntity);
      const live = await secrets.count({
        where: [
          { userId, revokedAt: IsNull(), expiresAt: IsNull() },
          { userId, revokedAt: IsNull(), expiresAt: MoreThan(new Date()) },
        ],
      });
      if (live >= max) throw new ConflictError(`At most ${max} live MCP secrets per user: revoke one before creating another`);
      const row = secrets.create({
        userId,
        label: request.label,
        agent: request.agent ?? null,
        expiresAt: request.expiresAt ?? null,
        secretHash: hashSecret(secret),
      });
      return (await secrets.save(row)).id;
    });
    return { id, secret };
  }

  /**
   * The owner's secrets that are not revoked, newest first, a page at a time; expired ones stay
   * listed with their date. The keyset is the creation time to the millisecond and the id.
   */
  async list(userId: string, limit: number, cursor?: string): Promise<Page<SecretSummary>> {
    const created = `date_trunc('milliseconds', "secret"."created_at")`;
    const query = this.secrets
      .createQueryBuilder('secret')
      .where('secret.userId = :userId AND secret.revokedAt IS NULL', { userId })
      .orderBy(created, 'DESC')
      .addOrderBy('secret.id', 'DESC')
      .limit(limit + 1);
    if (cursor) {
      const [createdAt, id] = decodeCursor(cursor, KEYSET);
      query.andWhere(`(${created}, "secret"."id") < (CAST(:createdAt AS timestamptz), CAST(:id AS uuid))`, { createdAt, id });
    }
    return toPage(
      await query.getMany(),
      limit,
      KEYSET,
      (row) => [row.createdAt.toISOString(), row.id],
      ({ id, label, agent, createdAt, expiresAt, lastUsedAt }) => ({
        id,
        label,
        agent,
        createdAt,
        expiresAt,
        lastUsedAt,
      }),
    );
  }

  /** Whether the secret is still live: neither revoked nor expired (nor deleted with its owner). */
  async isLive(id: string): Promise<boolean> {
    const row = await this.secrets.findOne({ where: { id, revokedAt: IsNull() }, select: { id: true, expiresAt: true } });
    return !!row && (!row.expiresAt || row.expiresAt.getTime() > Date.now());
  }

  /** False when the owner has no such live secret (another user's id included). */
  async revoke(userId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const result = await this.secrets.update({ id, userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  /**
   * The owner of a live secret and the agent it was created for; 401 for an unknown, revoked or
   * expired one, with one message for all three, so that the answer tells a guesser nothing about
   * which secrets ever existed.
   */
  async holder(secret: string): Promise<{ id: string; user: UserEntity; agent: string | null }> {
    const row = await this.secrets.findOne({ where: { secretHash: hashSecret(secret) }, relations: { user: true } });
    const expired = !!row?.expiresAt && row.expiresAt.getTime() <= Date.now();
    if (!row?.user || row.revokedAt || expired) throw new UnauthorizedException('Invalid MCP secret: unknown, revoked or expired');
    this.background.run('the last use of an MCP secret', () => this.touch(row.id));
    return { id: row.id, user: row.user, agent: row.agent };
  }

  /** At most one write a minute per secret: "last used" needs no finer grain than that. */
  private touch(id: string): Promise<unknown> {
    return this.secrets
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: () => 'now()' })
      .where('id = :id', { id })
      .andWhere(`(last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`)
      .execute();
  }
}
