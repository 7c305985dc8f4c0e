import type { FastifyRequest } from 'fastify';

/** The authenticated caller, as a tool receives it through `@CurrentUser()` and a REST handler through `@CurrentCaller()`. */
export interface UserInfo {
  /** Internal user id: for scoping queries, never for showing to a model. */
  readonly userId: string;
  /** The MCP session id, else the client's `X-Session-Id` header. */
  readonly sessionId?: string;
  readonly email?: string;
  /** True only when a token said `email_verified: true` for this address; what lets the address stand for the person. */
  readonly emailVerified?: boolean;
  readonly name?: string;
  readonly roles?: readonly string[];
  /** The conversation this call belongs to: the `X-Conversation-Id` header, else the MCP session id. */
  readonly conversationId?: string;
  /** The member (of the caller's care circle, say) the call acts for: the `X-Acting-For` header, an opaque id. */
  readonly actingFor?: string;
  /** The client acting for the caller: the MCP secret's agent, else `?agent=` on the `/mcp` URL. */
  readonly agent?: string;
  /**
   * The OAuth scopes the caller's token grants, when its credential carries scopes (a JWT with
   * `JWT_SCOPES_CLAIM` set); undefined: the caller is not limited by tools' scopes.
   */
  readonly scopes?: readonly string[];
  /**
   * The client's address on a REST route's caller (`@CurrentCaller()`): `request.ip`, through the
   * proxies `TRUST_PROXY` trusts. What the audit trail records of where an admin acted from.
   */
  readonly address?: string;
  /**
   * The revocable grant the caller's credential stands for: a personal MCP secret, or a connection
   * of the built-in authorization server. Absent for a JWT (its claims are its own until it
   * expires) and a console session. Read again before a call an approver allowed runs.
   */
  readonly grant?: CallerGrant;
}

export interface CallerGrant {
  readonly kind: 'mcp-secret' | 'connection';
  readonly id: string;
}

/** The scopes of `required` the caller lacks; none for a caller not limited by scopes. */
export function missingScopes(caller: Pick<UserInfo, 'scopes'> | undefined, required: readonly string[]): string[] {
  const granted = caller?.scopes;
  if (!granted || required.length === 0) return [];
  return required.filter((scope) => !granted.includes(scope));
}

/**
 * Resolves who is calling from an HTTP request, for `/mcp` and the REST guards alike. The auth lib
 * provides one; without it every caller is anonymous. Throw an HTTP exception (401) for a
 * credential that is present but invalid. A request without a credential may be answered
 * synchronously (`undefined`), sparing every anonymous call a promise.
 */
export interface CallerResolver {
  resolve(request: FastifyRequest): UserInfo | undefined | Promise<UserInfo | undefined>;
}

export const CALLER_RESOLVER = Symbol('CALLER_RESOLVER');
