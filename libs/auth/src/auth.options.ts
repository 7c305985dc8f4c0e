/** Requests allowed per window on `/mcp` and `/api`; a count of 0 switches that limit off. */
export interface RateLimitOptions {
  /** Requests per window per credential. */
  requests: number;
  /** Requests per window per client IP address without a credential. */
  anonymousRequests: number;
  windowSeconds: number;
}

/** The auth lib's options: `authConfig`'s section, plus the app's address and data directory. */
export interface AuthModuleOptions {
  /** The address clients reach the server at, without a trailing slash. */
  publicBaseUrl: string;
  /** Where a generated HS256 secret is kept when none is configured. */
  dataDir: string;
  /** HS256 key; exclusive with `jwksUrl`. */
  jwtSecret?: string;
  /** The identity provider's JWKS endpoint, for RS256/ES256 tokens; exclusive with `jwtSecret`. */
  jwksUrl?: string;
  /** Required `iss` of every token, when set. */
  jwtIssuer?: string;
  /** Accepted `aud` values (any one must match), when set. */
  jwtAudience?: string[];
  /**
   * Oldest token accepted, counted from its `iat` (which is then required); 0 switches the check
   * off. A token issued in the future is refused either way.
   */
  jwtMaxAgeSeconds: number;
  /** Claim listing the caller's roles, a dotted path for nested claims (e.g. `realm_access.roles`). */
  jwtRolesClaim: string;
  /**
   * Claim listing the OAuth scopes a token grants (a space-separated string or a list; a dotted
   * path for nested claims). Set, a JWT caller sees and calls only the tools its scopes allow
   * (`@McpTool({ scopes })`), and a token without the claim grants none; unset, JWTs are not limited.
   */
  jwtScopesClaim?: string;
  /** E-mail addresses (lower-cased) whose owners are admins whatever their token says. */
  adminEmails: string[];
  /** A JWKS file of the private EC P-256 keys the built-in authorization server signs with (the first signs); generated in `dataDir` without it. */
  oauthSigningKeysFile?: string;
  /**
   * Where OAuth clients get their tokens: `external`, from `oauthIssuer`; `builtin`, from this
   * server's own authorization server (libs/oauth), which the protected-resource metadata then names.
   */
  oauthMode: 'external' | 'builtin';
  /** The authorization server OAuth clients are sent to in `external` mode, named in the protected-resource metadata. */
  oauthIssuer?: string;
  /**
   * A Redis server that instances share rate-limit counters through; without it each instance counts
   * alone. (The app hands it to `CommonModule` too, whose `InstanceBroadcast` tells instances of erasures.)
   */
  redisUrl?: string;
  rateLimit: RateLimitOptions;
  /** Most live (neither revoked nor expired) MCP secrets one user may hold. */
  mcpSecretsMaxPerUser: number;
  /** How long the access log keeps a call, in seconds; 0 keeps calls forever. */
  accessLogRetentionSeconds: number;
  /**
   * How long a user id found for a token is trusted without asking the database (60 s by default):
   * how long an instance not told of an erasure may still act for the erased user's id.
   */
  knownUserTtlMs?: number;
  /** The web console's sessions: how long one lasts without a request, and at most. */
  consoleSessions: { idleSeconds: number; lifetimeSeconds: number };
  /** `SIGNING_SECRET`, the key of one-time console links; without it a key is generated in `dataDir`. */
  signingSecret?: string;
}

/** What `authConfig` gives: everything but what the app itself decides. */
export type AuthSectionOptions = Omit<AuthModuleOptions, 'publicBaseUrl' | 'dataDir' | 'signingSecret'>;

export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');

/** The section of the app's configuration (`ConfigService`) that holds `AuthModuleOptions`. */
export const AUTH_CONFIG_SECTION = 'auth';

/** `iss` recorded for tokens that carry none (HS256 tokens of this server without `JWT_ISSUER`). */
export const LOCAL_ISSUER = 'local';
