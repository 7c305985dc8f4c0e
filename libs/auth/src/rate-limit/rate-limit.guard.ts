import { HttpException, HttpStatus, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RATE_LIMITED } from '@app/common';
import { credentialKey, presentedCredential, type PresentedCredential } from '../credentials.js';
import { RequestRateLimiter } from './request-rate-limiter.js';

/**
 * Installed for every route, acting on those marked `@RateLimited()` (`/mcp`, and through `@Authenticated()`/`@AdminOnly()` every `/api` and `/admin` route): a budget per credential, or per client
 * IP address without one. Over budget: 429 with `Retry-After`. Runs before the credential is
 * checked, so a flood of bad credentials is throttled too; the key is a hash, never the credential.
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
    const verdict = await this.limiter.consume(credential ? credentialKey(credential) : request.ip, !credential);
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
