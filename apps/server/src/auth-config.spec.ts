import { describe, expect, it } from '@jest/globals';
import { loadAppConfig } from './config.js';

const SECRET = 'x'.repeat(32);

const JWKS = { JWKS_URL: 'https://id.example.com/jwks', JWT_ISSUER: 'https://id.example.com', JWT_AUDIENCE: 'mirobody' };

describe('the auth settings of loadAppConfig', () => {
  it('has defaults', () => {
    expect(loadAppConfig({}).auth).toMatchObject({
      jwtRolesClaim: 'roles',
      adminEmails: [],
      rateLimit: { requests: 600, anonymousRequests: 300, windowSeconds: 60 },
    });
  });

  it('reads lists, lower-cases admin e-mails, and names the issuer as authorization server by default', () => {
    const config = loadAppConfig({ JWT_SECRET: SECRET, JWT_ISSUER: 'https://id.example.com', JWT_AUDIENCE: 'a, b', ADMIN_EMAILS: 'Boss@Example.com' });
    expect(config.auth).toMatchObject({ jwtAudience: ['a', 'b'], adminEmails: ['boss@example.com'], oauthIssuer: 'https://id.example.com' });
    expect(loadAppConfig({ JWT_ISSUER: 'https://id.example.com', OAUTH_ISSUER: 'https://login.example.com' }).auth.oauthIssuer).toBe(
      'https://login.example.com',
    );
  });

  it('with OAUTH_MODE=builtin, is its own authorization server: OAUTH_ISSUER is refused, the identity provider required, anonymous /mcp challenged', () => {
    const builtin = { OAUTH_MODE: 'builtin', OIDC_ISSUER: 'https://login.example.com', OIDC_CLIENT_ID: 'mirobody', JWT_ISSUER: 'https://id.example.com' };
    const config = loadAppConfig(builtin);
    expect([config.auth.oauthMode, config.auth.oauthIssuer, config.mcp.requireCredential]).toEqual(['builtin', undefined, true]);
    expect(loadAppConfig({ ...builtin, MCP_REQUIRE_CREDENTIAL: 'false' }).mcp.requireCredential).toBe(false);
    expect(loadAppConfig({}).mcp.requireCredential).toBe(false);
    expect(() => loadAppConfig({ ...builtin, OAUTH_ISSUER: 'https://login.example.com' })).toThrow(
      'Invalid configuration OAUTH_ISSUER: is for OAUTH_MODE=external: with OAUTH_MODE=builtin this server is the authorization server',
    );
    expect(() => loadAppConfig({ OAUTH_MODE: 'builtin' })).toThrow('OIDC_ISSUER');
    expect(() => loadAppConfig({ OAUTH_MODE: 'internal' })).toThrow('OAUTH_MODE');
  });

  it('refuses to start in production without a token key', () => {
    expect(() => loadAppConfig({ NODE_ENV: 'production' })).toThrow('Invalid configuration JWT_SECRET: required when NODE_ENV=production (or set JWKS_URL)');
    expect(loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET }).auth.jwtSecret).toBe(SECRET);
    expect(loadAppConfig({ NODE_ENV: 'production', ...JWKS }).auth.jwksUrl).toBe('https://id.example.com/jwks');
  });

  it('refuses the built-in authorization server in production without PUBLIC_BASE_URL', () => {
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: SECRET,
      OAUTH_MODE: 'builtin',
      OIDC_ISSUER: 'https://login.example.com',
      OIDC_CLIENT_ID: 'mirobody',
    };
    expect(() => loadAppConfig(production)).toThrow(
      'Invalid configuration PUBLIC_BASE_URL: required when NODE_ENV=production with OAUTH_MODE=builtin: the https address clients reach this server at (the OAuth issuer)',
    );
    expect(loadAppConfig({ ...production, PUBLIC_BASE_URL: 'https://mcp.example.com' }).PUBLIC_BASE_URL).toBe('https://mcp.example.com');
    // Outside production, or with an external authorization server, the request's own address still serves.
    expect(loadAppConfig({ ...production, NODE_ENV: 'development' }).PUBLIC_BASE_URL_CONFIGURED).toBe(false);
    expect(loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET }).PUBLIC_BASE_URL_CONFIGURED).toBe(false);
  });

  it('refuses JWKS mode without both JWT_ISSUER and JWT_AUDIENCE (finding 6)', () => {
    expect(() => loadAppConfig({ JWKS_URL: JWKS.JWKS_URL, JWT_AUDIENCE: 'mirobody' })).toThrow('Invalid configuration JWT_ISSUER: required with JWKS_URL');
    expect(() => loadAppConfig({ JWKS_URL: JWKS.JWKS_URL, JWT_ISSUER: 'https://id.example.com' })).toThrow(
      'Invalid configuration JWT_AUDIENCE: required with JWKS_URL',
    );
    expect(() => loadAppConfig({ NODE_ENV: 'production', JWKS_URL: JWKS.JWKS_URL })).toThrow('Invalid configuration JWT_ISSUER');
  });

  it.each([
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ JWT_SECRET: SECRET, JWKS_URL: 'https://id.example.com/jwks' }, 'JWKS_URL'],
    [{ ...JWKS, JWKS_URL: 'http://id.example.com/jwks' }, 'JWKS_URL'],
    // Finding 13: only a 127.0.0.0/8 literal, ::1 or localhost is loopback.
    [{ ...JWKS, JWKS_URL: 'http://127.attacker.example/jwks' }, 'JWKS_URL'],
    [{ ...JWKS, JWKS_URL: 'http://127.0.0.1.nip.io/jwks' }, 'JWKS_URL'],
    [{ ...JWKS, JWKS_URL: 'http://localhost.attacker.example/jwks' }, 'JWKS_URL'],
    [{ JWKS_URL: 'not a url' }, 'JWKS_URL'],
    [{ OAUTH_ISSUER: 'ftp://id.example.com' }, 'OAUTH_ISSUER'],
    [{ ADMIN_EMAILS: 'boss' }, 'ADMIN_EMAILS'],
    [{ JWT_ROLES_CLAIM: 'two words' }, 'JWT_ROLES_CLAIM'],
    [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL'],
    [{ RATE_LIMIT_REQUESTS: '-1' }, 'RATE_LIMIT_REQUESTS'],
    [{ RATE_LIMIT_ANONYMOUS_REQUESTS: 'many' }, 'RATE_LIMIT_ANONYMOUS_REQUESTS'],
    [{ RATE_LIMIT_WINDOW_SECONDS: '0' }, 'RATE_LIMIT_WINDOW_SECONDS'],
  ])('refuses %j naming %s', (env, key) => {
    expect(() => loadAppConfig(env)).toThrow(`Invalid configuration ${key}:`);
  });

  it('accepts plain http for a JWKS on the machine itself, and never echoes a Redis URL', () => {
    for (const local of ['http://127.0.0.1:8080/jwks', 'http://127.8.9.10/jwks', 'http://[::1]:8080/jwks', 'http://localhost/jwks']) {
      expect(loadAppConfig({ ...JWKS, JWKS_URL: local }).auth.jwksUrl).toBe(local);
    }
    expect(() => loadAppConfig({ REDIS_URL: 'http://user:hunter2@cache:6379' })).toThrow(/^(?!.*hunter2)/);
  });
});
