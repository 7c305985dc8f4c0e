import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleSessions, Public, sessionCookie, sessionCookieName } from '@app/auth';
import { PublicAddress, Signer, type PurposeSigner } from '@app/common';
import { SignInPageError } from '../authorization/oauth-error.js';
import { errorPage, pageHeaders } from '../authorization/pages.js';
import { IdentityProvider, ProviderSignInError } from '../identity-provider/identity-provider.js';
import { consolePage, openPending, pendingCookie, PENDING_SIGN_IN_SECONDS, sealPending } from './pending-sign-in.js';

const CALLBACK_PATH = '/console/sign-in/callback';

/**
 * The web console's sign-in at the company's identity provider: authorization code with PKCE,
 * state and nonce (the provider leg `/authorize` uses), then a console session. Register
 * `<PUBLIC_BASE_URL>/console/sign-in/callback` at the provider beside `/oauth/callback`.
 * Browser redirects, not an API: out of the OpenAPI document.
 */
@ApiExcludeController()
@Controller('console/sign-in')
@Public()
export class ConsoleSignInController {
  private readonly pendingSigner: PurposeSigner;

  constructor(
    private readonly provider: IdentityProvider,
    private readonly sessions: ConsoleSessions,
    private readonly publicAddress: PublicAddress,
    signer: Signer,
  ) {
    this.pendingSigner = signer.forPurpose('console-sign-in');
  }

  @Get('oidc')
  async start(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('return') returnTo: unknown): Promise<void> {
    await this.answer(reply, async () => {
      const baseUrl = this.consoleAddress(request);
      let started;
      try {
        started = await this.provider.signIn(`${baseUrl}${CALLBACK_PATH}`);
      } catch (error) {
        throw new SignInPageError('Sign-in unavailable', `The identity provider could not be reached: ${(error as Error).message}`, 503);
      }
      const pending = sealPending(this.pendingSigner, {
        state: started.state,
        nonce: started.nonce,
        codeVerifier: started.codeVerifier,
        returnTo: consolePage(returnTo),
      });
      void reply
        .header('set-cookie', pendingCookie(baseUrl.startsWith('https:'), pending, PENDING_SIGN_IN_SECONDS))
        .header('cache-control', 'no-store')
        .redirect(started.url.href, 302);
    });
  }

  @Get('callback')
  async callback(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, async () => {
      const baseUrl = this.consoleAddress(request);
      const secure = baseUrl.startsWith('https:');
      const pending = openPending(this.pendingSigner, request.headers.cookie, secure);
      if (!pending)
        throw new SignInPageError(
          'Sign-in expired',
          'This browser started no sign-in here, or took longer than 10 minutes: start again from the console.',
          400,
        );
      let identity;
      try {
        identity = await this.provider.finishSignIn(new URL(request.url, baseUrl), pending);
      } catch (error) {
        if (error instanceof ProviderSignInError) throw new SignInPageError('Sign-in refused', error.message, 400);
        throw error;
      }
      const opened = await this.sessions.open(identity, 'oidc');
      void reply
        .header('set-cookie', [pendingCookie(secure, '', 0), sessionCookie(baseUrl, opened.token, opened.maxAgeSeconds)])
        .header('cache-control', 'no-store')
        .redirect(pending.returnTo, 303);
    });
  }

  /** The server's address, where the console's cookie can be kept (https, or a loopback address). */
  private consoleAddress(request: FastifyRequest): string {
    const baseUrl = this.publicAddress.baseUrlFor(request);
    if (!sessionCookieName(baseUrl))
      throw new SignInPageError(
        'Sign-in unavailable',
        `The console signs in over https only, or at a loopback address: ${baseUrl} is neither (set PUBLIC_BASE_URL).`,
        400,
      );
    return baseUrl;
  }

  private async answer(reply: FastifyReply, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      if (error instanceof SignInPageError) return void reply.code(error.status).headers(pageHeaders()).send(errorPage(error.title, error.message));
      // A disabled account (403 from the session) is said on a page too, not as JSON.
      const status = (error as { getStatus?: () => number }).getStatus?.();
      if (status === 403)
        return void reply
          .code(403)
          .headers(pageHeaders())
          .send(errorPage('Sign-in refused', (error as Error).message));
      throw error;
    }
  }
}
