import { HttpException, HttpStatus, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { credentialKey, presentedCredential, type PresentedCredential } from '../credentials.js';
import { RequestRateLimiter } from './request-rate-limiter.js';

/** Route patterns whose handlers are limited: `/mcp`, `/mcp/:secret` and everything under `/api`. */
const LIMITED_ROUTES = /^\/(mcp|api)(\/|$)/;

/**
 * Whether the handler this request was routed to is limited. Decided from the route Fastify
 * matched, never from the raw target: `/mc%70`, `/%6dcp` and `POST http://host/mcp` reach the
 * same handler as `/mcp`, and so count the same. (Route metadata may take over this decision.)
 */
export function routesToLimitedHandler(request: FastifyRequest): boolean {
  const route = request.routeOptions?.url;
  return route !== undefined && LIMITED_ROUTES.test(route);
}

/**
 * Installed for every route, acting on `/mcp` and `/api`: a budget per verified credential, or
 * per client IP address without one. Over budget: 429 with `Retry-After`. Runs before the
 * credential is checked: a credential this instance has not yet seen pass verification counts
 * against its address (a budget apart from anonymous requests), so inventing credentials buys no
 * fresh budget. The key of a credential is a hash, never the credential.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RequestRateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!routesToLimitedHandler(request)) return true;
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
