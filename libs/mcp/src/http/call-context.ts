import { BadRequestException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { UserInfo } from '@app/common';
import { requestedAgent } from './requested-agent.js';

/** Ids a client makes up (a conversation, a member): opaque, but short and printable. */
const OPAQUE_ID = /^[\w.:@-]{1,128}$/;

function optionalId(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  const single = Array.isArray(value) ? value[0] : value;
  if (typeof single !== 'string' || !OPAQUE_ID.test(single)) {
    throw new BadRequestException(`${name} must be 1 to 128 letters, digits or . _ : @ - characters`);
  }
  return single;
}

/**
 * The per-call context, read from the request once, here, and handed to tools in `UserInfo`:
 * - `conversationId`: the `X-Conversation-Id` header (else, later, the MCP session id);
 * - `actingFor`: the `X-Acting-For` header, the member a caregiver acts for (the lib that owns
 *   members checks the caller may);
 * - `agent`: the credential's agent (an MCP secret's, a JWT's `agent` claim), else `?agent=` on the `/mcp` URL.
 * A malformed value is a 400 naming the header, never silently dropped.
 */
export function withCallContext(request: FastifyRequest, caller: UserInfo): UserInfo {
  const conversationId = optionalId(request.headers['x-conversation-id'], 'X-Conversation-Id');
  const actingFor = optionalId(request.headers['x-acting-for'], 'X-Acting-For');
  const agent = caller.agent ?? requestedAgent(request);
  return { ...caller, ...(conversationId ? { conversationId } : {}), ...(actingFor ? { actingFor } : {}), ...(agent ? { agent } : {}) };
}
