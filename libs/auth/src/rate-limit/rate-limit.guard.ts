import { HttpException, HttpStatus, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequestRateLimiter } from './request-rate-limiter.js';

/**
 * The rate limit of the REST routes, applied by `@Authenticated()` and `@AdminOnly()` (so to every
 * `/api` and `/admin` route) before the caller is checked, and by `@Public()` to the routes anyone
 * may call; `/mcp` counts its requests itself
 * (`MCP_RATE_LIMIT`). The guard follows the handler Fastify matched, never the raw target:
 * `/%61pi/...` and `GET http://host/api/...` count like `/api/...`. Over budget (see
 * `RequestRateLimiter.admit`): 429 with `Retry-After`.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RequestRateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const verdict = await this.limiter.admit(context.switchToHttp().getRequest<FastifyRequest>());
    if (verdict.allowed) return true;
    context.switchToHttp().getResponse<FastifyReply>().header('retry-after', String(verdict.retryAfterSeconds));
    throw new HttpException(`Too many requests: try again in ${verdict.retryAfterSeconds} s`, HttpStatus.TOO_MANY_REQUESTS);
  }
}
