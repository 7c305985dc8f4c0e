import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';

/** The authenticated caller, as a tool receives it through `@CurrentUser()`. */
export interface UserInfo {
  /** Internal user id: for scoping queries, never for showing to a model. */
  readonly userId: string;
  /**
   * The MCP session id, else the client's `X-Session-Id` header. The latter is chosen by the
   * client and proves nothing: use it to group a client's calls, never to decide access.
   */
  readonly sessionId?: string;
  readonly email?: string;
  readonly name?: string;
  readonly roles?: readonly string[];
}

/**
 * Resolves who is calling from an HTTP request. The auth module provides one; without it every
 * caller is anonymous. Throw an HTTP exception (401) for a credential that is present but invalid.
 */
export interface McpCallerResolver {
  resolve(request: FastifyRequest): Promise<UserInfo | undefined>;
}

export const MCP_CALLER_RESOLVER = Symbol('MCP_CALLER_RESOLVER');

/** The resolved caller travels through the SDK inside `AuthInfo.extra`. */
export function toAuthInfo(caller: UserInfo): AuthInfo {
  return { token: '', clientId: caller.userId, scopes: [], extra: { caller } };
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
