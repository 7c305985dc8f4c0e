import { ForbiddenException, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { McpCallerResolver, UserInfo } from '@app/mcp';
import { AccountStatus } from './accounts/account-status.js';
import { presentedCredential } from './credentials.js';
import { JwtStrategy, McpSecretStrategy } from './strategies.js';

/**
 * A client's own session id is kept when it looks like one; anything else is ignored rather than
 * echoed to tools. `X-Session-Id` is the client's word only: it proves nothing (see `UserInfo.sessionId`).
 */
const ACCEPTABLE_SESSION_ID = /^[\w.:-]{1,128}$/;

/**
 * Who calls `/mcp`: `undefined` without a credential (anonymous tools still work), the caller for
 * a valid JWT or MCP secret, a 401 for any other. The caller comes from the credential alone;
 * nothing in the request body can change it. The strategies stay registered with passport (an
 * app's own `AuthGuard()` uses them) but are asked here directly: a passport round per request
 * (its middleware, a strategy object and callbacks made per call) cost 2-6% of the instructions
 * of an authenticated `tools/call`, for the same verdict.
 */
@Injectable()
export class AuthCallerResolver implements McpCallerResolver {
  constructor(
    private readonly jwt: JwtStrategy,
    private readonly secret: McpSecretStrategy,
    private readonly status: AccountStatus,
  ) {}

  resolve(request: FastifyRequest): UserInfo | undefined | Promise<UserInfo | undefined> {
    const credential = presentedCredential(request);
    // Anonymous calls are answered at once, without a promise.
    if (!credential) return undefined;
    return this.authenticated(credential.kind, request);
  }

  private async authenticated(kind: 'jwt' | 'secret', request: FastifyRequest): Promise<UserInfo> {
    // A strategy throws the HTTP exception for a bad credential (401; 503 when the identity provider is unreachable).
    const caller = await (kind === 'secret' ? this.secret : this.jwt).validate(request);
    // Checked here, where every credential of every route is resolved, so no route can forget it.
    if (await this.status.isDisabled(caller.userId)) throw new ForbiddenException('This account is disabled');
    // The MCP session id, when there is one, replaces this in the registry.
    const sessionId = request.headers['mcp-session-id'] ?? request.headers['x-session-id'];
    return typeof sessionId === 'string' && ACCEPTABLE_SESSION_ID.test(sessionId) ? { ...caller, sessionId } : caller;
  }
}
