/** The settings the auth module reads; the server's `AppConfig` satisfies this shape. */
export interface AuthModuleOptions {
  /** The address clients reach the server at, without a trailing slash. */
  PUBLIC_BASE_URL: string;
  /** False when PUBLIC_BASE_URL is only the default: the metadata then names the address the client used. */
  PUBLIC_BASE_URL_CONFIGURED?: boolean;
  /** Where a generated HS256 secret is kept when none is configured. */
  DATA_DIR: string;
  /** HS256 key; exclusive with `JWKS_URL`. */
  JWT_SECRET?: string;
  /** The identity provider's JWKS endpoint, for RS256/ES256 tokens; exclusive with `JWT_SECRET`. */
  JWKS_URL?: string;
  /** Required `iss` of every token, when set. */
  JWT_ISSUER?: string;
  /** Accepted `aud` values (any one must match), when set. */
  JWT_AUDIENCE?: string[];
  /**
   * Oldest token accepted, counted from its `iat` (which is then required); 0 switches the check
   * off. A token issued in the future is refused either way.
   */
  JWT_MAX_AGE_SECONDS: number;
  /** Claim listing the caller's roles, a dotted path for nested claims (e.g. `realm_access.roles`). */
  JWT_ROLES_CLAIM: string;
  /** E-mail addresses (lower-cased) whose owners are admins whatever their token says. */
  ADMIN_EMAILS: string[];
  /** The authorization server OAuth clients are sent to, named in the protected-resource metadata. */
  OAUTH_ISSUER?: string;
  /** A Redis server that instances share rate-limit counters through; without it each instance counts alone. */
  REDIS_URL?: string;
  /** Requests per window per credential on `/mcp` and `/api`; 0 switches the limit off. */
  RATE_LIMIT_REQUESTS: number;
  /** Requests per window per client IP address without a credential; 0 switches the limit off. */
  RATE_LIMIT_ANONYMOUS_REQUESTS: number;
  RATE_LIMIT_WINDOW_SECONDS: number;
  /** Most live (neither revoked nor expired) MCP secrets one user may hold. */
  MCP_SECRETS_MAX_PER_USER: number;
}

export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');

/** `iss` recorded for tokens that carry none (HS256 tokens of this server without `JWT_ISSUER`). */
export const LOCAL_ISSUER = 'local';
