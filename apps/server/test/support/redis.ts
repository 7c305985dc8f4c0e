import { describe } from '@jest/globals';
import { connect, createServer, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { describeNeeding, type NeededService } from './services.js';

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

/** Redis for the tests that need it: `TEST_REDIS_URL`, else the local server. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** The Redis server at `url`, for `describeNeeding`. */
export const redisService = (url: string): NeededService => ({
  name: 'Redis',
  url,
  answers: redisAnswers,
  urlVariable: 'TEST_REDIS_URL',
  requireVariable: 'REQUIRE_REDIS',
});

/**
 * `describe` for tests that need a Redis server: on a developer's machine without one they are
 * skipped with the reason printed; in CI (`CI=true`) or with `REQUIRE_REDIS=1` they run and fail.
 */
export function describeWithRedis(url: string): Promise<typeof describe | typeof describe.skip> {
  return describeNeeding(redisService(url));
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

/** The network between an app and Redis, under a test's control (see `relayTo`). */
export interface RedisRelay {
  /** The relay's `redis://` URL, to give an app as its REDIS_URL. */
  url: string;
  /** Drops every relayed connection and, while `away`, refuses new ones: Redis is down, or out of reach. */
  goAway(): void;
  /** Relays again: Redis is back. */
  comeBack(): void;
  close(): Promise<void>;
}

/** A TCP relay to the Redis at `url`, for tests of an app whose Redis goes away and comes back, without touching the shared server. */
export async function relayTo(url: string): Promise<RedisRelay> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let away = false;
  const server = createServer((client) => {
    if (away) return void client.destroy();
    const upstream = connect({ host: target.hostname, port: Number(target.port || 6379) });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => (sockets.delete(from), to.destroy()));
    }
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as { port: number }).port);
  return {
    url: relayed.href,
    goAway() {
      away = true;
      for (const socket of sockets) socket.destroy();
    },
    comeBack() {
      away = false;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((closed) => server.close(() => closed()));
    },
  };
}
