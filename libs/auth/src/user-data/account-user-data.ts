import { Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { InstanceBroadcast, UserDataContributor, type UserDataContributorShape } from '@app/common';
import { ConnectionEntity } from '../identity/connections/connection.entity.js';
import { McpSecretEntity } from '../identity/secrets/mcp-secret.entity.js';
import { ToolCallEntity } from '../access-log/tool-call.entity.js';
import { UserEntity } from '../users/user.entity.js';
import { UsersService } from '../users/users.service.js';
import { AccountStatus } from '../users/account-status.js';

/** The name the auth lib's part goes by in an export and in the admin's counts. */
export const ACCOUNT_PART = 'account';

/** The broadcast topic of erased users' ids. */
const ERASED_TOPIC = 'user-erased';

/**
 * The auth lib's part of a user's data: the user row, their MCP secrets and connected OAuth
 * clients (metadata only, never a token or its hash) and the access log. Erasing it tells every instance (`InstanceBroadcast`, with `REDIS_URL`) to stop
 * trusting the user's id at once; an instance not told trusts it until `UsersService` asks again.
 */
@Injectable()
@UserDataContributor(ACCOUNT_PART)
export class AccountUserData implements UserDataContributorShape, OnModuleInit {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(McpSecretEntity) private readonly secrets: Repository<McpSecretEntity>,
    @InjectRepository(ConnectionEntity) private readonly connections: Repository<ConnectionEntity>,
    @InjectRepository(ToolCallEntity) private readonly calls: Repository<ToolCallEntity>,
    private readonly usersService: UsersService,
    private readonly status: AccountStatus,
    @Optional() private readonly broadcast?: InstanceBroadcast,
  ) {}

  onModuleInit(): void {
    this.broadcast?.subscribe(ERASED_TOPIC, (userId) => this.forgetCached(userId));
  }

  async exportFor(userId: string) {
    const user = await this.users.findOneBy({ id: userId });
    if (!user) return null;
    // Never the secret nor its hash: selected column by column so a new column is not exported by accident.
    const secrets = await this.secrets.find({
      where: { userId },
      select: { id: true, label: true, agent: true, createdAt: true, expiresAt: true, lastUsedAt: true, revokedAt: true },
      order: { createdAt: 'ASC' },
    });
    const connections = await this.connections.find({
      where: { userId },
      select: {
        id: true,
        clientId: true,
        clientName: true,
        clientVerified: true,
        scope: true,
        resource: true,
        roles: true,
        assertionIssuer: true,
        createdAt: true,
        lastUsedAt: true,
        revokedAt: true,
      },
      order: { createdAt: 'ASC' },
    });
    const accessLog = await this.calls.find({
      where: { userId },
      select: { tool: true, success: true, durationMs: true, calledAt: true, requestId: true, error: true },
      order: { calledAt: 'ASC', id: 'ASC' },
    });
    const { id, issuer, subject, email, name, createdAt, updatedAt, disabledAt } = user;
    return { user: { id, issuer, subject, email, name, createdAt, updatedAt, disabledAt }, mcpSecrets: secrets, connections, accessLog };
  }

  /** The user row goes last of all parts (see `UserDataService`); its secrets, connections and access log go with it (ON DELETE CASCADE). */
  async eraseFor(userId: string): Promise<void> {
    await this.users.delete({ id: userId });
    this.forgetCached(userId);
    this.broadcast?.publish(ERASED_TOPIC, userId);
  }

  async countFor(userId: string): Promise<number> {
    const [user, secrets, connections, calls] = await Promise.all([
      this.users.countBy({ id: userId }),
      this.secrets.countBy({ userId }),
      this.connections.countBy({ userId }),
      this.calls.countBy({ userId }),
    ]);
    return user + secrets + connections + calls;
  }

  /** What this instance keeps in memory about the user: their id for their tokens, whether they are disabled. */
  private forgetCached(userId: string): void {
    this.usersService.forget(userId);
    this.status.forget(userId);
  }
}
