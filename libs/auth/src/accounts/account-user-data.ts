import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { UserDataContributor, type UserDataContributorShape } from '@app/common';
import { McpSecretEntity } from '../entities/mcp-secret.entity.js';
import { ToolCallEntity } from '../entities/tool-call.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import { UsersService } from '../users.service.js';
import { AccountStatus } from './account-status.js';

/** The name the auth lib's part goes by in an export and in the admin's counts. */
export const ACCOUNT_PART = 'account';

/** The auth lib's part of a user's data: the user row, their MCP secrets (metadata only) and the access log. */
@Injectable()
@UserDataContributor(ACCOUNT_PART)
export class AccountUserData implements UserDataContributorShape {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(McpSecretEntity) private readonly secrets: Repository<McpSecretEntity>,
    @InjectRepository(ToolCallEntity) private readonly calls: Repository<ToolCallEntity>,
    private readonly usersService: UsersService,
    private readonly status: AccountStatus,
  ) {}

  async exportFor(userId: string) {
    const user = await this.users.findOneBy({ id: userId });
    if (!user) return null;
    // Never the secret nor its hash: selected column by column so a new column is not exported by accident.
    const secrets = await this.secrets.find({
      where: { userId },
      select: { id: true, label: true, agent: true, createdAt: true, expiresAt: true, lastUsedAt: true, revokedAt: true },
      order: { createdAt: 'ASC' },
    });
    const accessLog = await this.calls.find({
      where: { userId },
      select: { tool: true, success: true, durationMs: true, calledAt: true },
      order: { calledAt: 'ASC', id: 'ASC' },
    });
    const { id, issuer, subject, email, name, createdAt, updatedAt, disabledAt } = user;
    return { user: { id, issuer, subject, email, name, createdAt, updatedAt, disabledAt }, mcpSecrets: secrets, accessLog };
  }

  /** The user row goes last of all parts (see `UserDataService`); its secrets and access log go with it (ON DELETE CASCADE). */
  async eraseFor(userId: string): Promise<void> {
    await this.users.delete({ id: userId });
    this.usersService.forget(userId);
    this.status.forget(userId);
  }

  async countFor(userId: string): Promise<number> {
    const [user, secrets, calls] = await Promise.all([this.users.countBy({ id: userId }), this.secrets.countBy({ userId }), this.calls.countBy({ userId })]);
    return user + secrets + calls;
  }
}
