import { describe, expect, it } from '@jest/globals';
import { BadRequestException, UnauthorizedException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { credentialKey, generateSecret, hashSecret, presentedCredential, SECRET_PREFIX } from './credentials.js';

/** A request as Fastify hands it over; repeated Authorization headers are one value in `headers` (Node keeps the first), all in `rawHeaders`. */
const request = (authorization?: string | string[], secret?: string, route = '/mcp/:secret') => {
  const sent = authorization === undefined ? [] : [authorization].flat();
  return {
    headers: sent.length ? { authorization: sent[0] } : {},
    raw: { rawHeaders: ['Host', 'localhost', ...sent.flatMap((value, index) => [index ? 'authorization' : 'Authorization', value])] },
    params: secret === undefined ? {} : { secret },
    routeOptions: { url: secret === undefined ? '/mcp' : route },
  } as unknown as FastifyRequest;
};

describe('secrets', () => {
  it('are prefixed, 256 random bits, and hashed with SHA-256', () => {
    const secret = generateSecret();
    expect(secret).toMatch(new RegExp(`^${SECRET_PREFIX}[A-Za-z0-9_-]{43}$`));
    expect(generateSecret()).not.toBe(secret);
    expect(hashSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('presentedCredential', () => {
  it('is undefined without an Authorization header or a path secret', () => {
    expect(presentedCredential(request())).toBeUndefined();
  });

  it('tells a secret from a JWT by its prefix, and takes the path form as a secret', () => {
    expect(presentedCredential(request('Bearer eyJ.a.b'))).toEqual({ kind: 'jwt', token: 'eyJ.a.b' });
    expect(presentedCredential(request(`bearer ${SECRET_PREFIX}x`))).toEqual({ kind: 'secret', token: `${SECRET_PREFIX}x` });
    expect(presentedCredential(request(undefined, 'anything'))).toEqual({ kind: 'secret', token: 'anything' });
    expect(presentedCredential(request(`Bearer ${SECRET_PREFIX}x`, `${SECRET_PREFIX}x`))).toEqual({ kind: 'secret', token: `${SECRET_PREFIX}x` });
  });

  it('takes an empty path secret (/mcp/) for none', () => {
    expect(presentedCredential(request(undefined, ''))).toBeUndefined();
    expect(presentedCredential(request('Bearer eyJ.a.b', ''))).toEqual({ kind: 'jwt', token: 'eyJ.a.b' });
  });

  it('refuses more than one Authorization header, alike or not, with 400', () => {
    for (const repeated of [
      ['Bearer a', 'Bearer b'],
      ['Bearer a', 'Bearer a'],
      ['Bearer a', 'Basic dTpw', 'Bearer c'],
    ]) {
      expect(() => presentedCredential(request(repeated))).toThrow(BadRequestException);
    }
  });

  it('takes no path parameter of another route for a secret', () => {
    expect(presentedCredential(request(undefined, 'x', '/api/things/:secret'))).toBeUndefined();
  });

  it('refuses another scheme, an empty bearer, and two different credentials', () => {
    for (const bad of [request('Basic dTpw'), request('Bearer '), request('Bearer a', 'b')]) {
      expect(() => presentedCredential(bad)).toThrow(UnauthorizedException);
    }
  });

  it('is keyed for rate limits by a hash, not by itself', () => {
    const key = credentialKey({ kind: 'jwt', token: 'eyJ.a.b' });
    expect(key).toHaveLength(32);
    expect(key).not.toContain('eyJ');
  });
});
