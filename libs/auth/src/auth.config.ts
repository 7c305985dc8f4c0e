import { ConfigError, defineConfigSection, duration, int, isLoopback, list, oneOf, optionalStr, parseUrl, str } from '@app/common';
import type { AuthSectionOptions } from './auth.options.js';

const httpUrl = (raw: string | undefined, key: string): string | undefined => {
  if (!raw) return undefined;
  const url = parseUrl(raw);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new ConfigError(key, `expected an http(s) URL, got "${raw}"`);
  return raw;
};

/** Token checking, admins and rate limits; `NODE_ENV=production` demands a configured token key. */
export const authConfig = defineConfigSection({
  keys: {
    JWT_SECRET: optionalStr({ pattern: /^.{32,}$/s, expected: 'at least 32 characters', secret: true }),
    JWKS_URL: optionalStr(),
    JWT_ISSUER: optionalStr(),
    JWT_AUDIENCE: list(),
    JWT_ROLES_CLAIM: str('roles', { pattern: /^\S+$/, expected: 'a claim name' }),
    /** The claim holding a token's OAuth scopes (`scope`, `scp`); unset, JWT callers are not limited by tools' scopes. */
    JWT_SCOPES_CLAIM: optionalStr({ pattern: /^\S+$/, expected: 'a claim name' }),
    /** The oldest a token may be (from its `iat`, which becomes required); 0 for no limit. */
    JWT_MAX_AGE: duration(24 * 3600, { minSeconds: 0, maxSeconds: 366 * 24 * 3600 }),
    ADMIN_EMAILS: list([], { item: /^[^@\s]+@[^@\s]+$/, expected: 'e-mail addresses' }),
    /** `external`: OAuth clients get their tokens from `OAUTH_ISSUER`; `builtin`: from this server, which signs users in at `OIDC_ISSUER` (libs/oauth). */
    OAUTH_MODE: oneOf(['external', 'builtin'] as const, 'external'),
    OAUTH_ISSUER: optionalStr(),
    /** The built-in authorization server's signing keys: a JWKS file of private EC P-256 keys, the first of which signs. */
    OAUTH_SIGNING_KEYS_FILE: optionalStr(),
    // Never echoed: the URL may carry a password.
    REDIS_URL: optionalStr({ pattern: /^rediss?:\/\//, expected: 'redis://[:password@]host:port[/db] or rediss://...', secret: true }),
    RATE_LIMIT_REQUESTS: int(600, { min: 0, max: 1_000_000 }),
    RATE_LIMIT_ANONYMOUS_REQUESTS: int(300, { min: 0, max: 1_000_000 }),
    RATE_LIMIT_WINDOW_SECONDS: int(60, { min: 1, max: 24 * 3600 }),
    MCP_SECRETS_MAX_PER_USER: int(20, { min: 1, max: 10_000 }),
    /** How long the access log keeps a call; 0 keeps calls forever. */
    ACCESS_LOG_RETENTION: duration(90 * 86400, { minSeconds: 0, maxSeconds: 100 * 366 * 86400, unitRequired: true }),
    /** A web console session ends after this long without a request... */
    CONSOLE_SESSION_IDLE: duration(3600, { minSeconds: 60, maxSeconds: 7 * 86400, unitRequired: true }),
    /** ...and this long after its sign-in in any case. */
    CONSOLE_SESSION_LIFETIME: duration(12 * 3600, { minSeconds: 300, maxSeconds: 30 * 86400, unitRequired: true }),
  },
  validate: (values, env) => {
    const jwksUrl = httpUrl(values.JWKS_URL, 'JWKS_URL');
    // Keys travel over this: plain http only to the machine itself (tests, a local identity provider).
    if (jwksUrl && new URL(jwksUrl).protocol === 'http:' && !isLoopback(new URL(jwksUrl).hostname.replace(/^\[|\]$/g, ''))) {
      throw new ConfigError('JWKS_URL', `expected an https URL (http only for a loopback address), got "${jwksUrl}"`);
    }
    if (values.JWT_SECRET && jwksUrl) throw new ConfigError('JWKS_URL', 'set either JWT_SECRET (HS256) or JWKS_URL (RS256/ES256), not both');
    if (env.NODE_ENV === 'production' && !values.JWT_SECRET && !jwksUrl)
      throw new ConfigError('JWT_SECRET', 'required when NODE_ENV=production (or set JWKS_URL)');
    httpUrl(values.OAUTH_ISSUER, 'OAUTH_ISSUER');
    if (values.OAUTH_MODE === 'builtin' && values.OAUTH_ISSUER)
      throw new ConfigError('OAUTH_ISSUER', 'is for OAUTH_MODE=external: with OAUTH_MODE=builtin this server is the authorization server');
    // A key set is often shared (Google, multi-tenant Entra ID, one Keycloak realm for many clients):
    // without both checks, anyone with an account there would get in (MCP authorization spec: the
    // server must check that a token was issued for it).
    if (jwksUrl && !values.JWT_ISSUER) throw new ConfigError('JWT_ISSUER', 'required with JWKS_URL: the issuer whose tokens this server accepts');
    if (jwksUrl && !values.JWT_AUDIENCE.length)
      throw new ConfigError('JWT_AUDIENCE', 'required with JWKS_URL: the audience the identity provider puts in tokens for this server');
    if (values.CONSOLE_SESSION_IDLE > values.CONSOLE_SESSION_LIFETIME)
      throw new ConfigError('CONSOLE_SESSION_IDLE', `must not exceed CONSOLE_SESSION_LIFETIME (${values.CONSOLE_SESSION_LIFETIME} s)`);
  },
  toOptions: (values): AuthSectionOptions => ({
    jwtSecret: values.JWT_SECRET,
    jwksUrl: values.JWKS_URL,
    jwtIssuer: values.JWT_ISSUER,
    jwtAudience: values.JWT_AUDIENCE.length ? values.JWT_AUDIENCE : undefined,
    jwtRolesClaim: values.JWT_ROLES_CLAIM,
    jwtScopesClaim: values.JWT_SCOPES_CLAIM,
    jwtMaxAgeSeconds: values.JWT_MAX_AGE,
    adminEmails: values.ADMIN_EMAILS.map((email) => email.toLowerCase()),
    oauthMode: values.OAUTH_MODE,
    oauthIssuer: values.OAUTH_MODE === 'builtin' ? undefined : (values.OAUTH_ISSUER ?? values.JWT_ISSUER),
    oauthSigningKeysFile: values.OAUTH_SIGNING_KEYS_FILE,
    redisUrl: values.REDIS_URL,
    rateLimit: {
      requests: values.RATE_LIMIT_REQUESTS,
      anonymousRequests: values.RATE_LIMIT_ANONYMOUS_REQUESTS,
      windowSeconds: values.RATE_LIMIT_WINDOW_SECONDS,
    },
    mcpSecretsMaxPerUser: values.MCP_SECRETS_MAX_PER_USER,
    accessLogRetentionSeconds: values.ACCESS_LOG_RETENTION,
    consoleSessions: { idleSeconds: values.CONSOLE_SESSION_IDLE, lifetimeSeconds: values.CONSOLE_SESSION_LIFETIME },
  }),
});
