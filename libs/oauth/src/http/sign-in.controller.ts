import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@app/auth';
import { PublicAddress } from '@app/common';
import { AuthorizationService, bindingCookieName, type ServerAddress } from '../authorization/authorization.service.js';
import { OAuthError, redirectWith, SignInPageError } from '../authorization/oauth-error.js';
import { consentPage, errorPage, formActionSource, pageHeaders } from '../authorization/pages.js';
import { oauthParameters, requestCookies } from './parameters.js';

/**
 * The browser's side of a sign-in: `/authorize` (the client sends the user here), the identity
 * provider's callback, and the consent page's answer. Pages, not an API: out of the OpenAPI
 * document, as the RFCs, not this server, define them.
 */
@ApiExcludeController()
@Controller()
@Public()
export class SignInController {
  constructor(
    private readonly authorization: AuthorizationService,
    private readonly publicAddress: PublicAddress,
  ) {}

  @Get('authorize')
  async authorize(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, async () => {
      const server = this.serverAddress(request);
      const start = await this.authorization.begin(oauthParameters(request.query), server);
      const secure = server.issuer.startsWith('https:') ? '; Secure' : '';
      void reply
        .header('set-cookie', `${start.binding.name}=${start.binding.value}; Path=/oauth; Max-Age=600; HttpOnly; SameSite=Lax${secure}`)
        .header('cache-control', 'no-store')
        .redirect(start.providerUrl, 302);
    });
  }

  @Get('oauth/callback')
  async callback(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, async () => {
      const callbackUrl = new URL(request.url, this.serverAddress(request).issuer);
      const view = await this.authorization.completeSignIn(callbackUrl, requestCookies(request));
      void reply
        .code(200)
        .headers(pageHeaders(formActionSource(view.redirectUri)))
        .send(consentPage(view));
    });
  }

  @Post('oauth/consent')
  async consent(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, async () => {
      // Beside the form's token: a browser names the page a form was sent from, and it must be this server's.
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== new URL(this.serverAddress(request).issuer).origin)
        throw new SignInPageError('Not confirmed', `This answer was sent from ${origin}, not from this server's consent page.`, 403);
      const form = oauthParameters(request.body);
      const target = await this.authorization.decide(form, requestCookies(request));
      void reply
        .header('set-cookie', `${bindingCookieName(form.request!)}=; Path=/oauth; Max-Age=0; HttpOnly; SameSite=Lax`)
        .header('cache-control', 'no-store')
        .redirect(target, 303);
    });
  }

  /** Runs a step; a page error becomes a page, an OAuth error with a checked redirect URI goes back to the client. */
  private async answer(reply: FastifyReply, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      if (error instanceof OAuthError && error.redirect)
        return void reply.header('cache-control', 'no-store').redirect(redirectWith(error.redirect, error.toJSON()), 302);
      if (error instanceof OAuthError) return void reply.code(400).headers(pageHeaders()).send(errorPage('Sign-in refused', error.message));
      if (error instanceof SignInPageError) return void reply.code(error.status).headers(pageHeaders()).send(errorPage(error.title, error.message));
      throw error;
    }
  }

  private serverAddress(request: FastifyRequest): ServerAddress {
    const issuer = this.publicAddress.baseUrlFor(request);
    return { issuer, resource: `${issuer}/mcp` };
  }
}
