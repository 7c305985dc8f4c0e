import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import type { UserInfo } from '@app/common';

export type { UserInfo };

/**
 * Resolves who is calling from an HTTP request. The auth module provides one; without it every
 * caller is anonymous. Throw an HTTP exception (401) for a credential that is present but invalid.
 */
export interface McpCallerResolver {
  resolve(request: FastifyRequest): Promise<UserInfo | undefined>;
}

export const MCP_CALLER_RESOLVER = Symbol('MCP_CALLER_RESOLVER');

/**
 * The resolved caller, the agent (which may be named without a caller) and the HTTP request id (for
 * error reports) travel through the SDK inside `AuthInfo.extra`.
 */
export function toAuthInfo(caller: UserInfo | undefined, agent = caller?.agent, requestId?: string): AuthInfo | undefined {
  if (!caller && agent === undefined) return undefined;
  const extra = { ...(caller ? { caller: { ...caller, ...(agent ? { agent } : {}) } } : {}), ...(agent ? { agent } : {}), ...(requestId ? { requestId } : {}) };
  return { token: '', clientId: caller?.userId ?? '', scopes: [], extra };
}

export function callerFromAuthInfo(authInfo: AuthInfo | undefined): UserInfo | undefined {
  return authInfo?.extra?.caller as UserInfo | undefined;
}

export function agentFromAuthInfo(authInfo: AuthInfo | undefined): string | undefined {
  return authInfo?.extra?.agent as string | undefined;
}

export function requestIdFromAuthInfo(authInfo: AuthInfo | undefined): string | undefined {
  return authInfo?.extra?.requestId as string | undefined;
}

/** What the server reports after each `tools/call` by a known caller, e.g. for an access log. */
export interface ToolCallEvent {
  caller: UserInfo;
  tool: string;
  success: boolean;
  durationMs: number;
}

/** Receives every `tools/call` by a known caller; must not throw or block (record asynchronously). */
export interface McpCallObserver {
  toolCalled(event: ToolCallEvent): void;
}

export const MCP_CALL_OBSERVER = Symbol('MCP_CALL_OBSERVER');
