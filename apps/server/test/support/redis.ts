import { describe } from '@jest/globals';
import { connect } from 'node:net';
import { Redis } from 'ioredis';

/** True when a Redis server answers PING at `url` within a second. */
export function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((settle) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    const finish = (answered: boolean) => (socket.destroy(), settle(answered));
    socket.setTimeout(1000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => finish(String(data).startsWith('+PONG')));
  });
}

/**
 * `describe` for tests that need a Redis server: on a developer's machine without one they are
 * skipped with the reason printed; in CI (`CI=true`) or with `REQUIRE_REDIS=1` they run and fail.
 */
export async function describeWithRedis(url: string): Promise<typeof describe | typeof describe.skip> {
  if (await redisAnswers(url)) return describe;
  const required = process.env.CI === 'true' || process.env.REQUIRE_REDIS === '1';
  if (required) return describe;
  process.stderr.write(`Skipping the tests that need Redis: nothing answers at ${url} (set TEST_REDIS_URL, or REQUIRE_REDIS=1 to fail instead).\n`);
  return describe.skip;
}

/** Deletes the rate-limit counters the app keeps in Redis (`mirobody:rate:*`), as a fresh Redis would have none. */
export async function forgetRateCounters(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const keys = await redis.keys('mirobody:rate:*');
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
