import { applyDecorators, createParamDecorator, SetMetadata, UnauthorizedException, UseGuards, type ExecutionContext } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { UserInfo } from '@app/common';
import { RateLimitGuard } from '../../rate-limit/rate-limit.guard.js';
import { CALLER_REQUIREMENT, CallerGuard, type AuthenticatedRequest, type CallerRequirement } from './caller.guard.js';

/** The OpenAPI security scheme names, declared in the document by the app. */
export const JWT_SCHEME = 'jwt';
export const MCP_SECRET_SCHEME = 'mcp-secret';

/**
 * The route needs a caller: a JWT or a personal MCP secret (`{ jwtOnly: true }`: a JWT only).
 * 401 with the RFC 9728 challenge otherwise; the caller is then `@CurrentCaller()`. Counted
 * against the caller's rate limit first, as every `/api` and `/admin` route is.
 */
export function Authenticated(options: { jwtOnly?: boolean } = {}) {
  const requirement: CallerRequirement = { jwtOnly: options.jwtOnly === true };
  return applyDecorators(
    SetMetadata(CALLER_REQUIREMENT, requirement),
    UseGuards(RateLimitGuard, CallerGuard),
    ApiBearerAuth(JWT_SCHEME),
    ...(options.jwtOnly ? [] : [ApiBearerAuth(MCP_SECRET_SCHEME)]),
    ApiUnauthorizedResponse({ description: 'No valid credential' }),
    ApiTooManyRequestsResponse({ description: 'Rate limit reached; see Retry-After' }),
  );
}

/** The route is for admins (the `admin` role, or an e-mail in `ADMIN_EMAILS`): 401 without a credential, 403 for anyone else. */
export function AdminOnly() {
  const requirement: CallerRequirement = { admin: true };
  return applyDecorators(
    SetMetadata(CALLER_REQUIREMENT, requirement),
    UseGuards(RateLimitGuard, CallerGuard),
    ApiBearerAuth(JWT_SCHEME),
    ApiBearerAuth(MCP_SECRET_SCHEME),
    ApiUnauthorizedResponse({ description: 'No valid credential' }),
    ApiForbiddenResponse({ description: 'Not an administrator' }),
    ApiTooManyRequestsResponse({ description: 'Rate limit reached; see Retry-After' }),
  );
}

/**
 * The route needs no caller (a signed link, discovery metadata), and is counted all the same: per
 * address without a credential (`RATE_LIMIT_ANONYMOUS_REQUESTS`), as every route anyone may call
 * is, or on the budget of a credential sent along. 429 with `Retry-After` past it.
 */
export function Public() {
  return applyDecorators(UseGuards(RateLimitGuard), ApiTooManyRequestsResponse({ description: 'Rate limit reached; see Retry-After' }));
}

/** The caller `@Authenticated()` or `@AdminOnly()` let through. */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): UserInfo => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  // Only reached on a route without @Authenticated(): a programming error, answered as a refusal rather than a crash.
  if (!request.user) throw new UnauthorizedException();
  // Per request: the resolved caller may be shared by every request of one credential.
  return { ...request.user, address: request.ip };
});
