import { HttpException, HttpStatus, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RATE_LIMITED } from '@app/common';
import { credentialKey, presentedCredential, type PresentedCredential } from '../credentials.js';
import { RequestRateLimiter } from './request-rate-limiter.js';

/**
 * Installed for every route, acting on those marked `@RateLimited()` (`/mcp`, and through
 * `@Authenticated()`/`@AdminOnly()` every `/api` and `/admin` route). Being route metadata, the
 * decision follows the handler Fastify matched, never the raw target: `/mc%70`, `/%6dcp` and
 * `POST http://host/mcp` count like `/mcp`. A budget per verified credential, or per client IP
 * address without one; over budget: 429 with `Retry-After`. Runs before the credential is checked:
 * a credential this instance has not yet seen pass verification counts against its address (a
 * budget apart from anonymous requests), so inventing credentials buys no fresh budget. The key of
 * a credential is a hash, never the credential.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RequestRateLimiter,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    if (!this.reflector.getAllAndOverride<boolean>(RATE_LIMITED, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const credential = credentialIn(request);
    const key = credential && credentialKey(credential);
    const verdict = !key
      ? await this.limiter.consume(request.ip, 'anonymous')
      : this.limiter.isVerified(key)
        ? await this.limiter.consume(key, 'credential')
        : await this.limiter.consume(request.ip, 'unverified');
    if (verdict.allowed) return true;
    context.switchToHttp().getResponse<FastifyReply>().header('retry-after', String(verdict.retryAfterSeconds));
    throw new HttpException(`Too many requests: try again in ${verdict.retryAfterSeconds} s`, HttpStatus.TOO_MANY_REQUESTS);
  }
}

/** A malformed Authorization header counts as none here; answering it (401) is the resolver's and the auth guard's job. */
function credentialIn(request: FastifyRequest): PresentedCredential | undefined {
  try {
    return presentedCredential(request);
  } catch {
    return undefined;
  }
}
