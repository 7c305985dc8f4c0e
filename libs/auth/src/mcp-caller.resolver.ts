import { ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import passport from 'passport';
import type { FastifyRequest } from 'fastify';
import type { McpCallerResolver, UserInfo } from '@app/mcp';
import { AccountStatus } from './accounts/account-status.js';
import { presentedCredential } from './credentials.js';
import { STRATEGY_NAMES, type StrategyNames } from './strategies.js';

/**
 * A client's own session id is kept when it looks like one; anything else is ignored rather than
 * echoed to tools. `X-Session-Id` is the client's word only: it proves nothing (see `UserInfo.sessionId`).
 */
const ACCEPTABLE_SESSION_ID = /^[\w.:-]{1,128}$/;

/**
 * Who calls `/mcp`: `undefined` without a credential (anonymous tools still work), the caller for
 * a valid JWT or MCP secret, a 401 for any other. The caller comes from the credential alone;
 * nothing in the request body can change it.
 */
@Injectable()
export class AuthCallerResolver implements McpCallerResolver {
  constructor(
    @Inject(STRATEGY_NAMES) private readonly strategies: StrategyNames,
    private readonly status: AccountStatus,
  ) {}

  resolve(request: FastifyRequest): UserInfo | undefined | Promise<UserInfo | undefined> {
    const credential = presentedCredential(request);
    // Anonymous calls are answered at once: no promise, no passport round.
    if (!credential) return undefined;
    return this.authenticated(credential.kind, request);
  }

  private async authenticated(kind: 'jwt' | 'secret', request: FastifyRequest): Promise<UserInfo> {
    const caller = await authenticate(kind === 'secret' ? this.strategies.secret : this.strategies.jwt, request);
    // Checked here, where every credential of every route is resolved, so no route can forget it.
    if (await this.status.isDisabled(caller.userId)) throw new ForbiddenException('This account is disabled');
    // The MCP session id, when there is one, replaces this in the registry.
    const sessionId = request.headers['mcp-session-id'] ?? request.headers['x-session-id'];
    return typeof sessionId === 'string' && ACCEPTABLE_SESSION_ID.test(sessionId) ? { ...caller, sessionId } : caller;
  }
}

/** The caller, or the strategy's HTTP exception (401 for a bad credential, 503 when the identity provider is unreachable). */
function authenticate(strategy: string, request: FastifyRequest): Promise<UserInfo> {
  return new Promise((resolve, reject) => {
    const middleware = passport.authenticate(strategy, { session: false }, (error: unknown, user: UserInfo | false) => {
      if (error) reject(error);
      else if (user) resolve(user);
      else reject(new UnauthorizedException());
    });
    middleware(request, undefined, reject);
  });
}
