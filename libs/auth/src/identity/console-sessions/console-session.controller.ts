import { BadRequestException, Body, Controller, Delete, ForbiddenException, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiTag, PublicAddress, type UserInfo } from '@app/common';
import { ADMIN_ROLE } from '../../users/users.service.js';
import type { AuthenticatedRequest } from '../rest/caller.guard.js';
import { Authenticated, CurrentCaller, Public } from '../rest/decorators.js';
import { ConsoleSessionDto, RedeemLinkDto } from './console-session.dto.js';
import { ConsoleSessions } from './console-sessions.service.js';
import { csrfTokenOf, sessionCookie, sessionCookieName } from '../../console-cookie.js';

/**
 * The console's sign-in by one-time link, the session the console runs on, and sign-out. The
 * OpenID Connect sign-in (a browser redirect, not an API) is the OAuth lib's.
 */
@ApiTag('console')
@Controller()
export class ConsoleSessionController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly publicAddress: PublicAddress,
  ) {}

  /** The console's sign-in page posts the link's token here; the link opens one session, once. */
  @Post('console/sign-in/link')
  @Public()
  @HttpCode(204)
  @ApiOperation({
    summary: 'Sign in to the console with a one-time link',
    description: 'The link comes from `npm run cli -- console-link --email <address>`; it works once, within 10 minutes. Sets the session cookie.',
  })
  @ApiNoContentResponse({ description: 'Signed in: the session cookie is set' })
  @ApiUnauthorizedResponse({ description: 'The link is not valid, has expired, or was used already' })
  @ApiForbiddenResponse({ description: 'Sent from another site, or the account is disabled' })
  async redeemLink(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: RedeemLinkDto): Promise<void> {
    const baseUrl = this.signInAddress(request);
    const opened = await this.sessions.redeemLink(body.token);
    void reply.header('set-cookie', sessionCookie(baseUrl, opened.token, opened.maxAgeSeconds)).header('cache-control', 'no-store');
  }

  @Get('api/console/session')
  @Authenticated()
  @ApiOperation({ summary: 'Read who is signed in, with the CSRF token the console sends back' })
  @ApiOkResponse({ type: ConsoleSessionDto })
  session(@CurrentCaller() caller: UserInfo, @Req() request: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply): ConsoleSessionDto {
    void reply.header('cache-control', 'no-store');
    const session = request.consoleSession;
    return {
      user: {
        id: caller.userId,
        email: caller.email ?? null,
        name: caller.name ?? null,
        roles: [...(caller.roles ?? [])],
        admin: caller.roles?.includes(ADMIN_ROLE) ?? false,
      },
      csrfToken: session ? csrfTokenOf(session.token) : null,
      signIn: session?.signIn ?? null,
      expiresAt: session?.expiresAt.toISOString() ?? null,
    };
  }

  @Delete('api/console/session')
  @Authenticated()
  @HttpCode(204)
  @ApiOperation({ summary: 'Sign out of the console: the session ends on every instance' })
  @ApiNoContentResponse({ description: 'Signed out; the cookie is cleared' })
  async signOut(@Req() request: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const session = request.consoleSession;
    if (!session) throw new BadRequestException('This request has no console session to end (it carries a bearer credential)');
    await this.sessions.close(session.id);
    void reply.header('set-cookie', sessionCookie(this.publicAddress.baseUrlFor(request), '', 0));
  }

  /**
   * The address a sign-in sets the cookie for. A sign-in form posted from another site would sign
   * the browser in as someone else (login CSRF), so it must come from this origin.
   */
  private signInAddress(request: FastifyRequest): string {
    const baseUrl = this.publicAddress.baseUrlFor(request);
    if (!sessionCookieName(baseUrl))
      throw new BadRequestException(`The console signs in over https only, or at a loopback address: ${baseUrl} is neither (set PUBLIC_BASE_URL)`);
    const origin = request.headers.origin;
    const sameOrigin = origin !== undefined ? origin === new URL(baseUrl).origin : request.headers['sec-fetch-site'] === 'same-origin';
    if (!sameOrigin) throw new ForbiddenException(`Refused: a sign-in must come from ${new URL(baseUrl).origin}`);
    return baseUrl;
  }
}
