import { ForbiddenException, Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AUTHENTICATION_REQUIRED, bearerChallenge, CALLER_RESOLVER, resourceMetadataUrl, type CallerResolver, type UserInfo } from '@app/common';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../../auth.options.js';
import { presentedCredential } from '../../credentials.js';
import { ADMIN_ROLE } from '../../users/users.service.js';
import { ConsoleCredential, type RequestConsoleSession } from '../console-sessions/console-credential.js';

export type AuthenticatedRequest = FastifyRequest & { user?: UserInfo; consoleSession?: RequestConsoleSession };

/** What a route demands of its caller, recorded by `@Authenticated()` / `@AdminOnly()`. */
export interface CallerRequirement {
  /** Only a JWT will do (managing MCP secrets): a leaked secret cannot mint more secrets. */
  jwtOnly?: boolean;
  admin?: boolean;
}

export const CALLER_REQUIREMENT = 'mirobody:caller-requirement';

/**
 * Lets a request through with a valid JWT or MCP secret (resolved exactly as `/mcp` resolves it),
 * or else the web console's session cookie, and puts the caller on `request.user`; 401 with the
 * RFC 9728 challenge without one, 403 for a non-admin on an admin route.
 */
@Injectable()
export class CallerGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(CALLER_RESOLVER) private readonly callers: CallerResolver,
    @Inject(AUTH_OPTIONS) private readonly options: AuthModuleOptions,
    private readonly console: ConsoleCredential,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<CallerRequirement | undefined>(CALLER_REQUIREMENT, [context.getHandler(), context.getClass()]) ?? {};
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    try {
      if (requirement.jwtOnly && presentedCredential(request)?.kind === 'secret')
        throw new UnauthorizedException('This endpoint takes a JWT, not an MCP secret');
      // A bearer credential speaks for the request when there is one; the console's cookie only without.
      const caller = (await this.callers.resolve(request)) ?? (await this.console.callerOf(request));
      if (!caller) throw new UnauthorizedException(AUTHENTICATION_REQUIRED);
      request.user = caller;
      if (requirement.admin && !caller.roles?.includes(ADMIN_ROLE)) throw new ForbiddenException('Administrators only');
      return true;
    } catch (error) {
      if (error instanceof UnauthorizedException) {
        context
          .switchToHttp()
          .getResponse<FastifyReply>()
          .header('www-authenticate', bearerChallenge(resourceMetadataUrl(this.options.publicBaseUrl)));
      }
      throw error;
    }
  }
}
