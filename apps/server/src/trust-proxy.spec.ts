import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@app/common';
import { fastifyTrustProxy, trustedProxies } from './trust-proxy.js';

describe('TRUST_PROXY', () => {
  it('trusts no proxy when unset or empty', () => {
    expect([trustedProxies(undefined), trustedProxies(''), trustedProxies('  ')]).toEqual([undefined, undefined, undefined]);
  });

  it('takes a hop count', () => {
    expect(trustedProxies('1')).toBe(1);
    expect(trustedProxies(' 2 ')).toBe(2);
  });

  it('takes addresses, CIDR ranges and the range names, trimmed', () => {
    expect(trustedProxies('10.0.0.7, 172.16.0.0/12,fd00::/8 ,::1,loopback, uniquelocal')).toEqual([
      '10.0.0.7',
      '172.16.0.0/12',
      'fd00::/8',
      '::1',
      'loopback',
      'uniquelocal',
    ]);
  });

  it.each([
    ['0', /hop count from 1 to 10, got 0/],
    ['11', /hop count from 1 to 10, got 11/],
    ['true', /"true" is neither/],
    ['10.0.0.0/33', /"10.0.0.0\/33" is neither/],
    ['fd00::/129', /"fd00::\/129" is neither/],
    ['10.0.0.1, proxy.internal', /"proxy.internal" is neither/],
    ['10.0.0.1,,10.0.0.2', /"" is neither/],
    ['10.0.0.0/8/1', /"10.0.0.0\/8\/1" is neither/],
    ['10.0.0.0/', /"10.0.0.0\/" is neither/],
    ['256.0.0.1', /"256.0.0.1" is neither/],
  ])('refuses %j naming the bad entry', (raw, message) => {
    expect(() => trustedProxies(raw)).toThrow(ConfigError);
    expect(() => trustedProxies(raw)).toThrow(message);
  });
});

describe("TRUST_PROXY as Fastify's trustProxy", () => {
  it('trusts the nearest hops of a hop count, and passes a list on', () => {
    const trustsHop = fastifyTrustProxy(2) as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => trustsHop('10.0.0.1', hop))).toEqual([true, true, false]);
    expect(fastifyTrustProxy(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
  });
});
