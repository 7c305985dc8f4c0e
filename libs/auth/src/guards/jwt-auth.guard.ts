import { createParamDecorator, Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserInfo } from '@app/mcp';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';
import { PassportAuthenticator } from '../authenticator.js';
import { JWT_STRATEGY } from '../strategies.js';

export type AuthenticatedRequest = FastifyRequest & { user?: UserInfo };

/** The RFC 9728 metadata address, which a 401 names so OAuth clients find where to log in. */
export const resourceMetadataUrl = (publicBaseUrl: string) => `${publicBaseUrl}/.well-known/oauth-protected-resource`;

/** HTTP routes (`/api/...`) for a user holding a JWT; the caller is then `@ApiCaller()`. */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: PassportAuthenticator,
    @Inject(AUTH_OPTIONS) private readonly options: AuthModuleOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    try {
      request.user = await this.authenticator.authenticate(JWT_STRATEGY, request);
    } catch (error) {
      if (error instanceof UnauthorizedException) {
        context.switchToHttp().getResponse<FastifyReply>().header('www-authenticate', `Bearer resource_metadata="${resourceMetadataUrl(this.options.PUBLIC_BASE_URL)}"`);
      }
      throw error;
    }
    return true;
  }
}

/** The caller `JwtAuthGuard` (or `AdminGuard`) let through. */
export const ApiCaller = createParamDecorator((_data: unknown, context: ExecutionContext): UserInfo => {
  const user = context.switchToHttp().getRequest<AuthenticatedRequest>().user;
  if (!user) throw new UnauthorizedException();
  return user;
});
