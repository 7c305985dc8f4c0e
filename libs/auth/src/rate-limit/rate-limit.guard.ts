import { HttpException, HttpStatus, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { credentialKey, presentedCredential, type PresentedCredential } from '../credentials.js';
import { RequestRateLimiter } from './request-rate-limiter.js';

const LIMITED_PATHS = /^\/(mcp|api)(\/|\?|$)/;

/**
 * Installed for every route, acting on `/mcp` and `/api`: a budget per credential, or per client
 * IP address without one. Over budget: 429 with `Retry-After`. Runs before the credential is
 * checked, so a flood of bad credentials is throttled too; the key is a hash, never the credential.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RequestRateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!LIMITED_PATHS.test(request.url)) return true;
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
