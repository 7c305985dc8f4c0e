import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { bearer, cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { describeWithRedis } from './support/redis.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const describeRedis = await describeWithRedis(REDIS_URL);
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_ANONYMOUS_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' };
const echo = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });

/** The statuses of `count` sequential calls. */
async function statuses(url: URL, count: number, headers: Record<string, string> = {}): Promise<number[]> {
  const seen: number[] = [];
  for (let index = 0; index < count; index++) seen.push((await postRaw(url, echo, { ...JSON_HEADERS, ...headers })).status);
  return seen;
}

describe('in memory', () => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(ENV);
  });

  afterAll(async () => {
    await running.close();
  });

  it('answers 429 with Retry-After past the anonymous budget of an IP address', async () => {
    expect(await statuses(running.url, 3)).toEqual([200, 200, 200]);
    const limited = await postRaw(running.url, echo);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('gives each credential its own budget, on /mcp and /api alike', async () => {
    const [alice, bob] = await Promise.all(['alice', 'bob'].map((sub) => cliToken(running, ENV, '--sub', sub)));
    expect(await statuses(running.url, 4, bearer(alice!))).toEqual([200, 200, 200, 200]);
    expect((await fetch(new URL('/api/mcp-secrets', running.url), { headers: bearer(alice!) })).status).toBe(200);
    expect(await statuses(running.url, 1, bearer(alice!))).toEqual([429]);
    expect(await statuses(running.url, 1, bearer(bob!))).toEqual([200]);
  });

  it('leaves other routes alone', async () => {
    expect((await fetch(new URL('/.well-known/oauth-protected-resource', running.url))).status).toBe(200);
  });
});

describeRedis('in Redis, shared by instances', () => {
  let first: RunningApp;
  let second: RunningApp;

  beforeAll(async () => {
    [first, second] = await Promise.all([startApp({ ...ENV, REDIS_URL }), startApp({ ...ENV, REDIS_URL })]);
  });

  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
  });

  it('counts a credential once across both', async () => {
    // A subject of its own, so that counters left in Redis by an earlier run do not count.
    const token = await cliToken(first, ENV, '--sub', randomUUID());
    expect([...(await statuses(first.url, 3, bearer(token))), ...(await statuses(second.url, 2, bearer(token)))]).toEqual([200, 200, 200, 200, 200]);
    expect(await statuses(first.url, 1, bearer(token))).toEqual([429]);
    expect(await statuses(second.url, 1, bearer(token))).toEqual([429]);
  });
});
