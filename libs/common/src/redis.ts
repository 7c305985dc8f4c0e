import { createRequire } from 'node:module';
import type { Logger } from '@nestjs/common';
import type { Redis, RedisOptions } from 'ioredis';

/**
 * A connection to the Redis at `url` (`REDIS_URL`). ioredis is loaded on the first call, so that
 * an instance without Redis does not keep its modules in memory. While Redis is away ioredis
 * reconnects by itself; `logger` warns once per distinct problem, with what the instance does
 * `meanwhile`, and says when Redis is back.
 */
export function connectRedis(url: string, options: RedisOptions, logger: Logger, meanwhile: string): Redis {
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new Redis(url, options);
  let lastError = '';
  redis.on('error', (error: Error) => {
    // ioredis repeats the error on every reconnection attempt; once per distinct problem is enough.
    if (error.message !== lastError) logger.warn(`Redis unavailable, ${meanwhile}: ${error.message}`);
    lastError = error.message;
  });
  redis.on('ready', () => {
    if (lastError) logger.log('Redis reachable again');
    lastError = '';
  });
  return redis;
}

/**
 * Closes a connection without waiting on a Redis that is away: QUIT when connected (what was sent
 * is answered first), else at once, which also stops the reconnection attempts.
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
