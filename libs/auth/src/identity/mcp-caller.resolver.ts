import { BadRequestException, ForbiddenException, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CallerResolver, UserInfo } from '@app/common';
import { AccountStatus } from '../users/account-status.js';
import { presentedCredential } from '../credentials.js';
import { JwtStrategy, McpSecretStrategy } from './strategies.js';

/**
 * What a session id may look like. `X-Session-Id` is the client's word only: it proves nothing (see
 * `UserInfo.sessionId`), and one that does not look like an id is refused (400 naming the header,
 * like `X-Conversation-Id`) rather than dropped or echoed to tools.
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
export class AuthCallerResolver implements CallerResolver {
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
    // An MCP session id is the server's own: one it did not issue is answered 404 by the session store.
    const mcpSessionId = request.headers['mcp-session-id'];
    if (mcpSessionId !== undefined)
      return typeof mcpSessionId === 'string' && ACCEPTABLE_SESSION_ID.test(mcpSessionId) ? { ...caller, sessionId: mcpSessionId } : caller;
    const clientSessionId = request.headers['x-session-id'];
    if (clientSessionId === undefined) return caller;
    if (typeof clientSessionId !== 'string' || !ACCEPTABLE_SESSION_ID.test(clientSessionId)) {
      throw new BadRequestException('X-Session-Id must be 1 to 128 letters, digits or . _ : - characters');
    }
    return { ...caller, sessionId: clientSessionId };
  }
}
