import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { closeRedis, connectRedis, Metrics } from '@app/common';
import type { McpRateLimit, RateLimitVerdict } from '@app/mcp';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';
import { credentialKey, presentedCredential, type CountedCredential } from '../credentials.js';
import { anySessionTokenIn } from '../console-cookie.js';

const ALLOWED: RateLimitVerdict = { allowed: true };

/** Enough verified credentials for any one instance; beyond it the oldest are forgotten (and verified again). */
const VERIFIED_CREDENTIALS_LIMIT = 10_000;

/**
 * Decides whether a request is within its budget: one per verified credential, or per client IP
 * address without one. A credential this instance has not yet seen pass verification counts
 * against its address (a budget apart from anonymous requests), so inventing credentials buys no
 * fresh budget. The key of a credential is a hash, never the credential. Counts before the
 * credential is checked, for `/mcp` (as its `MCP_RATE_LIMIT`) and the routes `RateLimitGuard` guards.
 *
 * Counts requests per key in fixed windows, with `rate-limiter-flexible`: in memory by default,
 * in Redis when `REDIS_URL` is set so that every instance counts against one budget (an atomic
 * Lua increment, no race between instances). Should Redis be unreachable, each instance falls
 * back to counting in memory (the library's insurance limiter) rather than refusing or waving
 * everything through.
 */
@Injectable()
export class RequestRateLimiter implements McpRateLimit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly redis?: Redis;
  private readonly perCredential?: RateLimiterAbstract;
  private readonly anonymous?: RateLimiterAbstract;
  private readonly unverified?: RateLimiterAbstract;
  /** Keys (`credentialKey`) of credentials this instance has seen pass verification. */
  private readonly verified = new Set<string>();

  constructor(
    @Inject(AUTH_OPTIONS) options: AuthModuleOptions,
    @Optional() private readonly metrics?: Metrics,
  ) {
    // No offline queue: while Redis is away a count fails at once and the in-memory limiter takes over.
    if (options.redisUrl)
      this.redis = connectRedis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }, this.logger, 'counting in memory meanwhile');
    const duration = options.rateLimit.windowSeconds;
    this.perCredential = this.limiter('credential', options.rateLimit.requests, duration);
    this.anonymous = this.limiter('anonymous', options.rateLimit.anonymousRequests, duration);
    // Made-up credentials cost a lookup each: they count per address, never on a budget of their own.
    this.unverified = this.limiter('unverified', options.rateLimit.anonymousRequests, duration);
  }

  /** Counts the request against its budget; synchronous (no hash, no promise) when that budget is unlimited. */
  admit(request: FastifyRequest): RateLimitVerdict | Promise<RateLimitVerdict> {
    // Nothing counted at all: the credential need not even be read.
    if (!this.anonymous && !this.countsCredentials) return ALLOWED;
    const credential = credentialIn(request);
    if (!credential) return this.anonymous ? this.consume(this.anonymous, request.ip, 'anonymous') : ALLOWED;
    if (!this.countsCredentials) return ALLOWED;
    const key = credentialKey(credential);
    return this.verified.has(key) ? this.consume(this.perCredential, key, 'credential') : this.consume(this.unverified, request.ip, 'unverified');
  }

  /** `budget` names the limiter in `rate_limit_refusals_total`. */
  private async consume(limiter: RateLimiterAbstract | undefined, key: string, budget: string): Promise<RateLimitVerdict> {
    if (!limiter) return ALLOWED;
    try {
      await limiter.consume(key);
      return ALLOWED;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.metrics?.rateLimitRefusal(budget);
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    }
  }

  /**
   * A budget of its own, `points` per `windowSeconds` per key (an address), counted where the
   * request limits are: in Redis when `REDIS_URL` is set, so that every instance spends the same
   * budget (in memory while Redis is away). `name` names it in the counters' keys and in
   * `rate_limit_refusals_total`. For a route that costs more than a request (`/register`).
   */
  budget(name: string, points: number, windowSeconds: number): (key: string) => Promise<RateLimitVerdict> {
    const limiter = this.limiter(name, points, windowSeconds);
    return (key) => this.consume(limiter, key, name);
  }

  /** Called once a credential passed verification: its requests count on its own budget from now on. */
  markVerified(credential: CountedCredential): void {
    if (!this.countsCredentials) return;
    const key = credentialKey(credential);
    if (this.verified.has(key)) return;
    if (this.verified.size >= VERIFIED_CREDENTIALS_LIMIT) this.verified.delete(this.verified.values().next().value!);
    this.verified.add(key);
  }

  /** Whether a request with a credential is counted at all: otherwise its key (a hash) is never needed. */
  private get countsCredentials(): boolean {
    return this.perCredential !== undefined || this.unverified !== undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.redis) await closeRedis(this.redis);
  }

  private limiter(kind: string, points: number, duration: number): RateLimiterAbstract | undefined {
    if (points === 0) return undefined;
    const keyPrefix = `mirobody:rate:${kind}`;
    const memory = new RateLimiterMemory({ points, duration, keyPrefix });
    if (!this.redis) return memory;
    return new RateLimiterRedis({ storeClient: this.redis, points, duration, keyPrefix, rejectIfRedisNotReady: true, insuranceLimiter: memory });
  }
}

/**
 * The bearer credential, else the console's session cookie. A malformed Authorization header counts
 * as none here; answering it (401) is the resolver's and the auth guard's job.
 */
function credentialIn(request: FastifyRequest): CountedCredential | undefined {
  let bearer;
  try {
    bearer = presentedCredential(request);
  } catch {
    return undefined;
  }
  if (bearer) return bearer;
  const sessionToken = anySessionTokenIn(request.headers.cookie);
  return sessionToken ? { kind: 'console', token: sessionToken } : undefined;
}
