import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { McpCallerResolver, UserInfo } from '@app/mcp';
import { PassportAuthenticator } from './authenticator.js';
import { presentedCredential } from './credentials.js';
import { JWT_STRATEGY, MCP_SECRET_STRATEGY } from './strategies.js';

/** A client's own session id is kept when it looks like one; anything else is ignored rather than echoed to tools. */
const ACCEPTABLE_SESSION_ID = /^[\w.:-]{1,128}$/;

/**
 * Who calls `/mcp`: `undefined` without a credential (anonymous tools still work), the caller for
 * a valid JWT or MCP secret, a 401 for any other. The caller comes from the credential alone;
 * nothing in the request body can change it.
 */
@Injectable()
export class AuthCallerResolver implements McpCallerResolver {
  constructor(private readonly authenticator: PassportAuthenticator) {}

  async resolve(request: FastifyRequest): Promise<UserInfo | undefined> {
    const credential = presentedCredential(request);
    if (!credential) return undefined;
    const caller = await this.authenticator.authenticate(credential.kind === 'secret' ? MCP_SECRET_STRATEGY : JWT_STRATEGY, request);
    // The MCP session id, when there is one, replaces this in the registry.
    const sessionId = request.headers['mcp-session-id'] ?? request.headers['x-session-id'];
    return typeof sessionId === 'string' && ACCEPTABLE_SESSION_ID.test(sessionId) ? { ...caller, sessionId } : caller;
  }
}
