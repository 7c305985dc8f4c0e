import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import type { UserInfo } from '@app/common';
import type { OperationOutcome } from './http/operation-outcome.js';

export type { UserInfo };

/**
 * The resolved caller, its agent, the HTTP request id (for error reports) and, when metrics or
 * traces are recorded, the exchange's outcome travel through the SDK inside `AuthInfo.extra`; an anonymous
 * caller may still name an agent.
 */
export function toAuthInfo(
  caller: UserInfo | undefined,
  context: { agent?: string; requestId?: string; outcome?: OperationOutcome } = {},
): AuthInfo | undefined {
  const agent = context.agent ?? caller?.agent;
  if (!caller && agent === undefined && !context.outcome) return undefined;
  const extra = {
    ...(caller ? { caller: agent === undefined ? caller : { ...caller, agent } } : {}),
    ...(agent === undefined ? {} : { agent }),
    ...(context.requestId ? { requestId: context.requestId } : {}),
    ...(context.outcome ? { outcome: context.outcome } : {}),
  };
  return { token: '', clientId: caller?.userId ?? '', scopes: [], extra };
}

/** The caller key of every request without a credential. */
export const ANONYMOUS_CALLER = 'anonymous';

/**
 * Who a request comes from, as exchanges and sessions are bound to it: the user id, or
 * `ANONYMOUS_CALLER`. Only another request with the same key may touch what this one opened.
 */
export function callerKey(authInfo: AuthInfo | undefined): string {
  const caller = callerFromAuthInfo(authInfo);
  return caller ? `user:${caller.userId}` : ANONYMOUS_CALLER;
}

export function callerFromAuthInfo(authInfo: AuthInfo | undefined): UserInfo | undefined {
  return authInfo?.extra?.caller as UserInfo | undefined;
}

export function requestIdFromAuthInfo(authInfo: AuthInfo | undefined): string | undefined {
  return authInfo?.extra?.requestId as string | undefined;
}

export function agentFromAuthInfo(authInfo: AuthInfo | undefined): string | undefined {
  return authInfo?.extra?.agent as string | undefined;
}

/** What the server reports after each `tools/call` by a known caller, e.g. for an access log. */
export interface ToolCallEvent {
  caller: UserInfo;
  tool: string;
  success: boolean;
  durationMs: number;
  /** The HTTP request's id (`X-Request-Id`), when the call came with one. */
  requestId?: string;
  /**
   * Why a failed call failed: the tool error's message, or `Internal error` for a failure of the
   * server's (whose details stay in the log, under the request id); undefined for a success.
   */
  error?: string;
}

/** Receives every `tools/call` by a known caller; must not throw or block (record asynchronously). */
export interface McpCallObserver {
  toolCalled(event: ToolCallEvent): void;
}

export const MCP_CALL_OBSERVER = Symbol('MCP_CALL_OBSERVER');

export type RateLimitVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts every `/mcp` request against its caller's budget before anything else looks at it; over
 * budget, the request is answered 429 with `Retry-After`. The auth module provides one; without
 * it nothing is limited. Answers synchronously when it counts nothing, sparing each call a promise.
 */
export interface McpRateLimit {
  admit(request: FastifyRequest): RateLimitVerdict | Promise<RateLimitVerdict>;
}

export const MCP_RATE_LIMIT = Symbol('MCP_RATE_LIMIT');
