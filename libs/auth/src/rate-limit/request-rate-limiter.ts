import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';

export type RateLimitVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Who a request is counted against: a verified credential, an address without one, or an address presenting one not yet verified. */
export type RateLimitBudget = 'credential' | 'anonymous' | 'unverified';

/** Enough verified credentials for any one instance; beyond it the oldest are forgotten (and verified again). */
const VERIFIED_CREDENTIALS_LIMIT = 10_000;

/**
 * Counts requests per key in fixed windows, with `rate-limiter-flexible`: in memory by default,
 * in Redis when `REDIS_URL` is set so that every instance counts against one budget (an atomic
 * Lua increment, no race between instances). Should Redis be unreachable, each instance falls
 * back to counting in memory (the library's insurance limiter) rather than refusing or waving
 * everything through.
 */
@Injectable()
export class RequestRateLimiter implements OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly redis?: Redis;
  private readonly perCredential?: RateLimiterAbstract;
  private readonly anonymous?: RateLimiterAbstract;
  private readonly unverified?: RateLimiterAbstract;
  /** Keys (`credentialKey`) of credentials this instance has seen pass verification. */
  private readonly verified = new Set<string>();

  constructor(@Inject(AUTH_OPTIONS) options: AuthModuleOptions) {
    if (options.redisUrl) this.redis = this.connect(options.redisUrl);
    const duration = options.rateLimit.windowSeconds;
    this.perCredential = this.limiter('credential', options.rateLimit.requests, duration);
    this.anonymous = this.limiter('anonymous', options.rateLimit.anonymousRequests, duration);
    // Made-up credentials cost a lookup each: they count per address, never on a budget of their own.
    this.unverified = this.limiter('unverified', options.rateLimit.anonymousRequests, duration);
  }

  /** Counts one request under `key` in `budget`. */
  async consume(key: string, budget: RateLimitBudget): Promise<RateLimitVerdict> {
    const limiter = budget === 'credential' ? this.perCredential : budget === 'anonymous' ? this.anonymous : this.unverified;
    if (!limiter) return { allowed: true };
    try {
      await limiter.consume(key);
      return { allowed: true };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    }
  }

  /** Called once a credential passed verification: its requests count on its own budget from now on. */
  markVerified(credentialKey: string): void {
    if (this.verified.has(credentialKey)) return;
    if (this.verified.size >= VERIFIED_CREDENTIALS_LIMIT) this.verified.delete(this.verified.values().next().value!);
    this.verified.add(credentialKey);
  }

  isVerified(credentialKey: string): boolean {
    return this.verified.has(credentialKey);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => this.redis?.disconnect());
  }

  private limiter(kind: string, points: number, duration: number): RateLimiterAbstract | undefined {
    if (points === 0) return undefined;
    const keyPrefix = `mirobody:rate:${kind}`;
    const memory = new RateLimiterMemory({ points, duration, keyPrefix });
    if (!this.redis) return memory;
    return new RateLimiterRedis({ storeClient: this.redis, points, duration, keyPrefix, rejectIfRedisNotReady: true, insuranceLimiter: memory });
  }

  private connect(url: string): Redis {
    // No offline queue: while Redis is away a count fails at once and the in-memory limiter takes over.
    const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    let lastError = '';
    redis.on('error', (error: Error) => {
      // ioredis repeats the error on every reconnection attempt; once per distinct problem is enough.
      if (error.message !== lastError) this.logger.warn(`Redis unavailable, counting in memory meanwhile: ${error.message}`);
      lastError = error.message;
    });
    redis.on('ready', () => {
      if (lastError) this.logger.log('Redis reachable again');
      lastError = '';
    });
    return redis;
  }
}
