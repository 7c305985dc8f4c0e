import { randomBytes } from 'node:crypto';
import { ForbiddenException, Inject, Injectable, Logger, UnauthorizedException, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { describeError, HOURLY_AFTER_START, PeriodicJob, type PurposeSigner, type UserInfo } from '@app/common';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../../auth.options.js';
import { hashSecret } from '../../credentials.js';
import type { TokenIdentity } from '../../users/token-identity.js';
import { AccountStatus } from '../../users/account-status.js';
import { UsersService } from '../../users/users.service.js';
import { consoleLinkSigner, readConsoleLink } from './console-link.js';
import { ConsoleLinkRedemptionEntity, ConsoleSessionEntity, type ConsoleSignInMethod } from './console-session.entity.js';

/** A session just opened: the token goes into the cookie, and is never seen again. */
export interface OpenedSession {
  token: string;
  caller: UserInfo;
  expiresAt: Date;
  /** The cookie's `Max-Age`: the session's lifetime. */
  maxAgeSeconds: number;
}

/** A live session, as a request presenting its cookie finds it. */
export interface LiveSession {
  id: string;
  caller: UserInfo;
  signIn: ConsoleSignInMethod;
  expiresAt: Date;
}

/**
 * How often a session's `last_seen_at` moves forward, at most: a write a minute, not one a request;
 * and well within the idle timeout, so that a session in use never reaches it between two writes.
 */
const touchAfterMs = (idleSeconds: number) => Math.min(60_000, (idleSeconds * 1000) / 4);
/** Ended sessions and used links are kept this long (for a user's "signed in at" history), then deleted. */
const KEEP_ENDED_SECONDS = 86_400;

interface SessionRow {
  id: string;
  roles: string[];
  sign_in: ConsoleSignInMethod;
  last_seen_at: Date;
  expires_at: Date;
  user_id: string;
  email: string | null;
  email_verified: boolean;
  name: string | null;
}

/**
 * The web console's sign-ins: a session per signed-in browser, behind an HttpOnly cookie, with an
 * idle timeout and an absolute lifetime (`CONSOLE_SESSION_IDLE`, `CONSOLE_SESSION_LIFETIME`). The
 * cookie is a credential for `/api` and `/admin` alone (`CallerGuard` reads it; `/mcp` never does).
 * Every request reads the session's row, so a sign-out, a disabled account or an erasure ends it
 * on every instance at once.
 */
@Injectable()
export class ConsoleSessions implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ConsoleSessions');
  private readonly linkSigner: PurposeSigner;
  private readonly purge = new PeriodicJob(
    HOURLY_AFTER_START,
    () => this.purgeEnded(),
    (error) => this.logger.error(`Purging ended console sessions failed: ${describeError(error)}`),
  );

  constructor(
    @InjectRepository(ConsoleSessionEntity) private readonly sessions: Repository<ConsoleSessionEntity>,
    @InjectRepository(ConsoleLinkRedemptionEntity) private readonly redemptions: Repository<ConsoleLinkRedemptionEntity>,
    private readonly users: UsersService,
    private readonly status: AccountStatus,
    @Inject(AUTH_OPTIONS) private readonly options: AuthModuleOptions,
  ) {
    this.linkSigner = consoleLinkSigner(options);
  }

  onApplicationBootstrap(): void {
    this.purge.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.purge.stop();
  }

  /** Opens a session for someone who signed in (at the identity provider, or by a one-time link). */
  async open(identity: TokenIdentity, signIn: ConsoleSignInMethod): Promise<OpenedSession> {
    const caller = await this.users.callerFromToken(identity);
    if (await this.status.isDisabled(caller.userId)) throw new ForbiddenException('This account is disabled');
    const token = randomBytes(32).toString('base64url');
    const maxAgeSeconds = this.options.consoleSessions.lifetimeSeconds;
    const expiresAt = new Date(Date.now() + maxAgeSeconds * 1000);
    await this.sessions.insert({ tokenHash: hashSecret(token), userId: caller.userId, roles: [...(caller.roles ?? [])], signIn, expiresAt });
    return { token, caller, expiresAt, maxAgeSeconds };
  }

  /** Opens a session for the user a one-time link names; a link works once, within its ten minutes. */
  async redeemLink(token: string): Promise<OpenedSession> {
    const link = readConsoleLink(this.linkSigner, this.options, token);
    if (!link) throw new UnauthorizedException('This sign-in link is not valid or has expired (links last 10 minutes): ask for a new one');
    // The row is the proof of use: of two requests with one link, only one inserts it.
    const inserted = await this.redemptions.createQueryBuilder().insert().values({ linkId: link.id }).orIgnore().returning('link_id').execute();
    if ((inserted.raw as unknown[]).length === 0) throw new UnauthorizedException('This sign-in link was used already: ask for a new one');
    return this.open(link.identity, 'link');
  }

  /** The live session a cookie's token opens, with its caller; undefined for none (ended, revoked, or its user disabled). */
  async find(token: string): Promise<LiveSession | undefined> {
    const rows: SessionRow[] = await this.sessions.query(
      `SELECT s.id, s.roles, s.sign_in, s.last_seen_at, s.expires_at, u.id AS user_id, u.email, u.email_verified, u.name
         FROM console_sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
          AND s.last_seen_at > now() - $2::integer * interval '1 second' AND u.disabled_at IS NULL`,
      [hashSecret(token), this.options.consoleSessions.idleSeconds],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (Date.now() - new Date(row.last_seen_at).getTime() > touchAfterMs(this.options.consoleSessions.idleSeconds))
      await this.sessions.update({ id: row.id }, { lastSeenAt: () => 'now()' });
    const caller: UserInfo = {
      userId: row.user_id,
      ...(row.email ? { email: row.email, emailVerified: row.email_verified } : {}),
      ...(row.name ? { name: row.name } : {}),
      roles: row.roles,
    };
    return { id: row.id, caller, signIn: row.sign_in, expiresAt: new Date(row.expires_at) };
  }

  /** Signs a session out. */
  async close(sessionId: string): Promise<void> {
    await this.sessions.update({ id: sessionId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }

  /** Ends every session of a user (their account was disabled); how many were live. */
  async closeAllOf(userId: string): Promise<number> {
    const result = await this.sessions.update({ userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return result.affected ?? 0;
  }

  private async purgeEnded(): Promise<void> {
    const keep = KEEP_ENDED_SECONDS + this.options.consoleSessions.idleSeconds;
    await this.sessions.query(
      `DELETE FROM console_sessions WHERE expires_at < now() - $1::integer * interval '1 second'
          OR revoked_at < now() - $1::integer * interval '1 second' OR last_seen_at < now() - $1::integer * interval '1 second'`,
      [keep],
    );
    await this.redemptions.query(`DELETE FROM console_link_redemptions WHERE redeemed_at < now() - $1::integer * interval '1 second'`, [KEEP_ENDED_SECONDS]);
  }
}
