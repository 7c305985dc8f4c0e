import { createParamDecorator, Inject, Injectable, UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import { AuthGuard, AuthModuleOptions as PassportOptions } from '@nestjs/passport';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserInfo } from '@app/mcp';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';

export type AuthenticatedRequest = FastifyRequest & { user?: UserInfo };

/** The RFC 9728 metadata address, which a 401 names so OAuth clients find where to log in. */
export const resourceMetadataUrl = (publicBaseUrl: string) => `${publicBaseUrl}/.well-known/oauth-protected-resource`;

/**
 * HTTP routes (`/api/...`) for a user holding a JWT; the caller is then `@ApiCaller()`. The
 * strategy is passport's default one, which `AuthModule` sets to this app's JWT strategy.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard() {
  constructor(
    passportOptions: PassportOptions,
    @Inject(AUTH_OPTIONS) private readonly settings: AuthModuleOptions,
  ) {
    super(passportOptions);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    try {
      return (await super.canActivate(context)) as boolean;
    } catch (error) {
      if (error instanceof UnauthorizedException) {
        context.switchToHttp().getResponse<FastifyReply>().header('www-authenticate', `Bearer resource_metadata="${resourceMetadataUrl(this.settings.PUBLIC_BASE_URL)}"`);
      }
      throw error;
    }
  }
}

/** The caller `JwtAuthGuard` (or `AdminGuard`) let through. */
export const ApiCaller = createParamDecorator((_data: unknown, context: ExecutionContext): UserInfo => {
  const user = context.switchToHttp().getRequest<AuthenticatedRequest>().user;
  if (!user) throw new UnauthorizedException();
  return user;
});
