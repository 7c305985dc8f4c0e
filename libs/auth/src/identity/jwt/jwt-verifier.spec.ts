import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { ServiceUnavailableException, UnauthorizedException } from '@nestjs/common';
import { SignJWT } from 'jose';
import { LOCAL_ISSUER } from '../../auth.options.js';
import { CLOCK_SKEW_SECONDS, JwtVerifier } from './jwt-verifier.js';

const secret = new TextEncoder().encode('k'.repeat(32));
const verifier = (rolesClaim = 'roles') => new JwtVerifier({ mode: 'hs256', secret, generated: false }, { jwtRolesClaim: rolesClaim });
const sign = (claims: Record<string, unknown>, expiresIn: string | number = '5m') =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('sam').setExpirationTime(expiresIn).sign(secret);

describe('JwtVerifier', () => {
  it('reads subject, email, name and roles; a token without iss counts as local', async () => {
    const identity = await verifier().verify(await sign({ email: 's@example.com', email_verified: true, name: 'Sam', roles: ['admin', 7] }));
    expect(identity).toEqual({ issuer: LOCAL_ISSUER, subject: 'sam', email: 's@example.com', emailVerified: true, name: 'Sam', roles: ['admin'] });
  });

  it('finds roles as a space-separated string, a nested claim, or a namespaced claim', async () => {
    expect((await verifier().verify(await sign({ roles: 'admin reader' }))).roles).toEqual(['admin', 'reader']);
    expect((await verifier('realm_access.roles').verify(await sign({ realm_access: { roles: ['admin'] } }))).roles).toEqual(['admin']);
    expect((await verifier('https://example.com/roles').verify(await sign({ 'https://example.com/roles': ['admin'] }))).roles).toEqual(['admin']);
  });

  it('reads scopes only when JWT_SCOPES_CLAIM names a claim: a space-separated string, a list, a nested claim, or none', async () => {
    const scoped = (claim: string) => new JwtVerifier({ mode: 'hs256', secret, generated: false }, { jwtRolesClaim: 'roles', jwtScopesClaim: claim });
    expect(await verifier().verify(await sign({ scope: 'files:read' }))).not.toHaveProperty('scopes');
    expect((await scoped('scope').verify(await sign({ scope: 'files:read  memory:read' }))).scopes).toEqual(['files:read', 'memory:read']);
    expect((await scoped('scp').verify(await sign({ scp: ['files:read'] }))).scopes).toEqual(['files:read']);
    expect((await scoped('ext.scopes').verify(await sign({ ext: { scopes: ['files:read'] } }))).scopes).toEqual(['files:read']);
    expect((await scoped('scope').verify(await sign({}))).scopes).toEqual([]);
  });

  it.each([[42], [{ files: 'read' }], [['files:read', 7]], [null]])(
    'refuses a scope claim of %j rather than read it as no scopes or every scope',
    async (value) => {
      const scoped = new JwtVerifier({ mode: 'hs256', secret, generated: false }, { jwtRolesClaim: 'roles', jwtScopesClaim: 'scope' });
      const refusal = scoped.verify(await sign({ scope: value }));
      await expect(refusal).rejects.toBeInstanceOf(UnauthorizedException);
      await expect(refusal).rejects.toThrow('Invalid token: "scope" must be a space-separated string or a list of strings');
    },
  );

  it('counts an e-mail address as verified only when the token says email_verified: true (finding 3)', async () => {
    const verified = async (claims: Record<string, unknown>) => (await verifier().verify(await sign({ email: 's@example.com', ...claims }))).emailVerified;
    expect(await verified({ email_verified: true })).toBe(true);
    for (const unverified of [{ email_verified: false }, {}, { email_verified: 'false' }, { email_verified: 'true' }, { email_verified: 1 }]) {
      expect(await verified(unverified)).toBe(false);
    }
  });

  it('bounds a token’s age by JWT_MAX_AGE, requiring iat, and refuses a future iat (finding 14)', async () => {
    const bounded = new JwtVerifier({ mode: 'hs256', secret, generated: false }, { jwtRolesClaim: 'roles', jwtMaxAgeSeconds: 24 * 3600 });
    const now = Math.floor(Date.now() / 1000);
    const signed = (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('sam')
        .setExpirationTime(now + 100 * 365 * 86_400)
        .sign(secret);
    expect((await bounded.verify(await signed({ iat: now }))).subject).toBe('sam');
    await expect(bounded.verify(await signed({}))).rejects.toThrow(UnauthorizedException);
    await expect(bounded.verify(await signed({ iat: now - 2 * 86_400 }))).rejects.toThrow(UnauthorizedException);
    await expect(bounded.verify(await signed({ iat: now + 365 * 86_400 }))).rejects.toThrow(UnauthorizedException);
    // Without a maximum age a future iat is still refused.
    await expect(verifier().verify(await signed({ iat: now + 365 * 86_400 }))).rejects.toThrow(UnauthorizedException);
  });

  it('requires exp', async () => {
    const noExpiry = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('sam').sign(secret);
    await expect(verifier().verify(noExpiry)).rejects.toThrow(UnauthorizedException);
  });

  describe('a token verified before', () => {
    afterEach(() => {
      jest.useRealTimers();
    });

    it('is answered from memory, with the same identity', async () => {
      const checker = verifier();
      const token = await sign({ email: 's@example.com' });
      expect(checker.verifiedBefore(token)).toBeUndefined();
      const identity = await checker.verify(token);
      expect(checker.verifiedBefore(token)).toBe(identity);
      expect(await checker.verify(token)).toBe(identity);
      // A token that failed is not kept: it fails again.
      const forged = `${token.slice(0, -2)}xx`;
      await expect(checker.verify(forged)).rejects.toThrow(UnauthorizedException);
      expect(checker.verifiedBefore(forged)).toBeUndefined();
    });

    it('is checked again once a minute has passed, and refused once exp (with the clock skew) or the maximum age has', async () => {
      jest.useFakeTimers({ now: Date.now(), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const now = Math.floor(Date.now() / 1000);
      const longLived = await sign({}, now + 3600);
      const checker = verifier();
      await checker.verify(longLived);
      jest.advanceTimersByTime(59_000);
      expect(checker.verifiedBefore(longLived)).toBeDefined();
      jest.advanceTimersByTime(2_000);
      expect(checker.verifiedBefore(longLived)).toBeUndefined();
      expect((await checker.verify(longLived)).subject).toBe('sam');

      const shortLived = await sign({}, now + 10);
      await checker.verify(shortLived);
      jest.advanceTimersByTime(10_000 + CLOCK_SKEW_SECONDS * 1000 + 1_000);
      expect(checker.verifiedBefore(shortLived)).toBeUndefined();
      await expect(checker.verify(shortLived)).rejects.toThrow(UnauthorizedException);

      const bounded = new JwtVerifier({ mode: 'hs256', secret, generated: false }, { jwtRolesClaim: 'roles', jwtMaxAgeSeconds: 30 });
      // Issued 10 s ago, with a maximum age of 30 s.
      const current = Math.floor(Date.now() / 1000);
      const aging = await new SignJWT({ iat: current - 10 })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('sam')
        .setExpirationTime(current + 3600)
        .sign(secret);
      await bounded.verify(aging);
      jest.advanceTimersByTime(19_000);
      expect(bounded.verifiedBefore(aging)).toBeDefined();
      jest.advanceTimersByTime(2_000);
      expect(bounded.verifiedBefore(aging)).toBeUndefined();
      await expect(bounded.verify(aging)).rejects.toThrow(UnauthorizedException);
    });
  });

  it('answers 503 when the JWKS cannot be fetched', async () => {
    const remote = new JwtVerifier({ mode: 'jwks', url: new URL('http://127.0.0.1:9/jwks') }, { jwtRolesClaim: 'roles' });
    // The key set is fetched before the signature is looked at, so any RS256-headed token will do.
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${part({ alg: 'RS256', kid: 'k' })}.${part({ sub: 's', exp: 9_999_999_999 })}.c2ln`;
    await expect(remote.verify(token)).rejects.toThrow(ServiceUnavailableException);
  });
});
