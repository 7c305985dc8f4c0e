import { ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { PublicAddress, type UserInfo } from '@app/common';
import { RequestRateLimiter } from '../../rate-limit/request-rate-limiter.js';
import { ConsoleSessions } from './console-sessions.service.js';
import type { ConsoleSignInMethod } from './console-session.entity.js';
import { isCsrfTokenOf, sessionTokenIn } from '../../console-cookie.js';

/** The console session a request came with, for the routes that manage it (`/api/console/session`). */
export interface RequestConsoleSession {
  id: string;
  token: string;
  signIn: ConsoleSignInMethod;
  expiresAt: Date;
}

/** The header the console sends its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

/** Methods that change nothing: a cross-site page may make the browser send them, and learns nothing from the answer. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The console's cookie as a credential of `/api` and `/admin` (`CallerGuard` asks for it when a
 * request has no bearer credential). A cookie goes along with requests other sites make the browser
 * send, so a request that may change something must also prove it comes from the console: its
 * `Origin` is this server's (or, without one, `Sec-Fetch-Site: same-origin`), and it carries the
 * session's CSRF token, which only a page of this origin can read (`GET /api/console/session`).
 */
@Injectable()
export class ConsoleCredential {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly publicAddress: PublicAddress,
    private readonly limiter: RequestRateLimiter,
  ) {}

  /** The caller of a request carrying the cookie; undefined without it. 401 once the session has ended, 403 without the proof. */
  async callerOf(request: FastifyRequest & { consoleSession?: RequestConsoleSession }): Promise<UserInfo | undefined> {
    const baseUrl = this.publicAddress.baseUrlFor(request);
    const token = sessionTokenIn(request.headers.cookie, baseUrl);
    if (!token) return undefined;
    const session = await this.sessions.find(token);
    if (!session) throw new UnauthorizedException('Your console session has ended: sign in again');
    this.limiter.markVerified({ kind: 'console', token });
    if (!SAFE_METHODS.has(request.method)) requireSameOrigin(request, token, new URL(baseUrl).origin);
    request.consoleSession = { id: session.id, token, signIn: session.signIn, expiresAt: session.expiresAt };
    return session.caller;
  }
}

function requireSameOrigin(request: FastifyRequest, token: string, origin: string): void {
  const sentOrigin = request.headers.origin;
  const sameOrigin = sentOrigin !== undefined ? sentOrigin === origin : request.headers['sec-fetch-site'] === 'same-origin';
  if (!sameOrigin) throw new ForbiddenException(`Refused: a request signed in by the console's cookie must come from ${origin}`);
  const csrf = request.headers[CSRF_HEADER];
  if (typeof csrf !== 'string' || !isCsrfTokenOf(token, csrf))
    throw new ForbiddenException(`Refused: send the console session's CSRF token (GET /api/console/session) in the ${CSRF_HEADER} header`);
}
