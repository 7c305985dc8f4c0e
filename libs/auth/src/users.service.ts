import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { UserInfo } from '@app/mcp';
import { AUTH_OPTIONS, type AuthModuleOptions } from './auth.options.js';
import { UserEntity } from './entities/user.entity.js';
import type { TokenIdentity } from './jwt/jwt-verifier.js';

export const ADMIN_ROLE = 'admin';

/** Enough distinct token holders for any one instance; beyond it the oldest entries go. */
const KNOWN_USERS_LIMIT = 10_000;

/** Turns verified credentials into callers, creating each user on their first valid token. */
@Injectable()
export class UsersService {
  /** (issuer, subject, email, name) → user id: a repeat token costs no database write. */
  private readonly known = new Map<string, string>();
  private readonly adminEmails: Set<string>;

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @Inject(AUTH_OPTIONS) options: AuthModuleOptions,
  ) {
    this.adminEmails = new Set(options.ADMIN_EMAILS.map((email) => email.toLowerCase()));
  }

  async callerFromToken(identity: TokenIdentity): Promise<UserInfo> {
    const userId = await this.idFor(identity);
    const admin = identity.roles.includes(ADMIN_ROLE) || (identity.emailVerified && this.isAdminEmail(identity.email));
    return caller(userId, identity.email, identity.name, admin ? [...new Set([...identity.roles, ADMIN_ROLE])] : identity.roles, identity.agent);
  }

  /** An MCP secret carries no claims: its owner is an admin only through `ADMIN_EMAILS`. */
  callerFromUser(user: UserEntity): UserInfo {
    return caller(user.id, user.email ?? undefined, user.name ?? undefined, this.isAdminEmail(user.email) ? [ADMIN_ROLE] : []);
  }

  /** Drops what is remembered of an erased user, so their next token makes a new user. */
  forget(userId: string): void {
    for (const [key, id] of this.known) if (id === userId) this.known.delete(key);
  }

  private isAdminEmail(email: string | null | undefined): boolean {
    return !!email && this.adminEmails.has(email.toLowerCase());
  }

  /** Upserts by (issuer, subject); email and name follow the latest token that carries them. */
  private async idFor({ issuer, subject, email, name }: TokenIdentity): Promise<string> {
    const key = JSON.stringify([issuer, subject, email ?? null, name ?? null]);
    const cached = this.known.get(key);
    if (cached) return cached;
    const updated = [...(email ? ['email'] : []), ...(name ? ['name'] : []), 'updated_at'];
    const result = await this.users
      .createQueryBuilder()
      .insert()
      .into(UserEntity)
      .values({ issuer, subject, ...(email ? { email } : {}), ...(name ? { name } : {}), updatedAt: () => 'now()' })
      // Two first requests of one user at once: the second updates the row the first inserted.
      .orUpdate(updated, ['issuer', 'subject'])
      .returning('id')
      .execute();
    const id = (result.raw as { id: string }[])[0]!.id;
    if (this.known.size >= KNOWN_USERS_LIMIT) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, id);
    return id;
  }
}

function caller(userId: string, email: string | undefined, name: string | undefined, roles: string[], agent?: string): UserInfo {
  return { userId, ...(email ? { email } : {}), ...(name ? { name } : {}), roles, ...(agent ? { agent } : {}) };
}
