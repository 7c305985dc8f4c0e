import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { UserInfo } from '@app/common';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';
import { UserEntity } from './user.entity.js';
import type { TokenIdentity } from './token-identity.js';

export const ADMIN_ROLE = 'admin';

/** Enough distinct token holders for any one instance; beyond it the oldest entries go. */
const KNOWN_USERS_LIMIT = 10_000;
/**
 * How long a user id is trusted without asking the database, unless `knownUserTtlMs` says
 * otherwise: a row deleted behind this process's back (by hand, or by another instance that could
 * not tell this one) is noticed within this time, or at once by a write that needs the row (`forget`).
 */
const KNOWN_USER_TTL_MS = 60_000;

/** Turns verified credentials into callers, creating each user on their first valid token. */
@Injectable()
export class UsersService {
  /**
   * (issuer, subject) → user id, what the row was last written with (email, name, roles) and when:
   * a repeat token costs no database write; one that carries something else writes it at once.
   */
  private readonly known = new Map<string, { id: string; written: string; confirmedAt: number }>();
  private readonly adminEmails: Set<string>;
  private readonly knownUserTtlMs: number;

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @Inject(AUTH_OPTIONS) options: AuthModuleOptions,
  ) {
    this.adminEmails = new Set(options.adminEmails.map((email) => email.toLowerCase()));
    this.knownUserTtlMs = options.knownUserTtlMs ?? KNOWN_USER_TTL_MS;
  }

  async callerFromToken(identity: TokenIdentity): Promise<UserInfo> {
    const admin = identity.roles.includes(ADMIN_ROLE) || (identity.emailVerified && this.isAdminEmail(identity.email));
    const roles = admin ? [...new Set([...identity.roles, ADMIN_ROLE])] : identity.roles;
    const userId = await this.idFor(identity, roles);
    const known = caller(userId, identity.email, identity.emailVerified, identity.name, roles, identity.agent);
    return identity.scopes ? { ...known, scopes: identity.scopes } : known;
  }

  /**
   * An MCP secret carries no claims: its owner is an admin only through `ADMIN_EMAILS`, with an
   * address a token verified. A connection of the built-in authorization server adds the roles its
   * identity provider vouched for at its latest sign-in or refresh (`grantedRoles`).
   */
  callerFromUser(user: UserEntity, grantedRoles: readonly string[] = []): UserInfo {
    const admin = grantedRoles.includes(ADMIN_ROLE) || (user.emailVerified && this.isAdminEmail(user.email));
    const roles = admin ? [...new Set([...grantedRoles, ADMIN_ROLE])] : [...grantedRoles];
    return caller(user.id, user.email ?? undefined, user.emailVerified, user.name ?? undefined, roles);
  }

  private isAdminEmail(email: string | null | undefined): boolean {
    return !!email && this.adminEmails.has(email.toLowerCase());
  }

  /**
   * Upserts by (issuer, subject); email (with whether it was verified) and name follow the latest
   * token that carries them, roles (`admin` included when it made them one) the latest token.
   */
  private async idFor({ issuer, subject, email, emailVerified, name }: TokenIdentity, tokenRoles: string[]): Promise<string> {
    const roles = [...new Set(tokenRoles)].sort();
    const key = JSON.stringify([issuer, subject]);
    const written = JSON.stringify([email ?? null, email ? emailVerified : null, name ?? null, roles]);
    const cached = this.known.get(key);
    if (cached?.written === written && Date.now() - cached.confirmedAt < this.knownUserTtlMs) return cached.id;
    const updated = [...(email ? ['email', 'email_verified'] : []), ...(name ? ['name'] : []), 'roles', 'updated_at'];
    const result = await this.users
      .createQueryBuilder()
      .insert()
      .into(UserEntity)
      .values({ issuer, subject, ...(email ? { email, emailVerified } : {}), ...(name ? { name } : {}), roles, updatedAt: () => 'now()' })
      // Two first requests of one user at once: the second updates the row the first inserted.
      .orUpdate(updated, ['issuer', 'subject'])
      .returning('id')
      .execute();
    const id = (result.raw as { id: string }[])[0]!.id;
    this.known.delete(key);
    if (this.known.size >= KNOWN_USERS_LIMIT) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, { id, written, confirmedAt: Date.now() });
    return id;
  }

  /** Stops trusting a user id whose row is gone (erased, or found missing): the next token re-creates the user. */
  forget(userId: string): void {
    for (const [key, entry] of this.known) if (entry.id === userId) this.known.delete(key);
  }
}

/** `emailVerified` travels only with the address it is about, and is true only when `verified` is exactly `true`. */
function caller(userId: string, email: string | undefined, verified: boolean, name: string | undefined, roles: string[], agent?: string): UserInfo {
  return { userId, ...(email ? { email, emailVerified: verified === true } : {}), ...(name ? { name } : {}), roles, ...(agent ? { agent } : {}) };
}
