import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ConnectionsService, InvalidGrantError, InvalidScopeError, Public } from '@app/auth';
import { PublicAddress, ScopesSupported } from '@app/common';
import { AuthorizationService } from '../authorization/authorization.service.js';
import { OAuthError } from '../authorization/oauth-error.js';
import { ClientMetadataError, parseRegistration } from '../clients/client-metadata.js';
import { ClientsService, UnknownClientError } from '../clients/clients.service.js';
import { OAUTH_OPTIONS, type OAuthModuleOptions } from '../oauth.options.js';
import { clientCredentials, oauthParameters } from './parameters.js';

/** RFC 6749 §5.1: token responses, and errors about them, are never cached. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/**
 * The built-in authorization server's endpoints for clients: its metadata (RFC 8414) and keys,
 * `/token` (codes and refresh tokens), `/revoke` (RFC 7009) and `/register` (RFC 7591, limited per
 * address). Errors are RFC 6749's `{ error, error_description }`.
 */
@ApiExcludeController()
@Controller()
@Public()
export class TokenController {
  private readonly registrations: RateLimiterMemory;

  constructor(
    private readonly authorization: AuthorizationService,
    private readonly clients: ClientsService,
    private readonly connections: ConnectionsService,
    private readonly publicAddress: PublicAddress,
    private readonly scopes: ScopesSupported,
    @Inject(OAUTH_OPTIONS) options: OAuthModuleOptions,
  ) {
    this.registrations = new RateLimiterMemory({ points: options.registrationsPerHour, duration: 3600, keyPrefix: 'oauth-register' });
  }

  @Get('.well-known/oauth-authorization-server')
  metadata(@Req() request: FastifyRequest) {
    const issuer = this.publicAddress.baseUrlFor(request);
    return {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      revocation_endpoint: `${issuer}/revoke`,
      jwks_uri: `${issuer}/oauth/jwks`,
      scopes_supported: this.scopes.list(),
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    };
  }

  @Get('oauth/jwks')
  jwks() {
    return this.connections.publicKeys();
  }

  @Post('token')
  async token(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, 200, async () => {
      const form = oauthParameters(request.body);
      const client = await this.client(request, form);
      if (form.grant_type === 'authorization_code') return this.authorization.exchangeCode(form, client);
      if (form.grant_type === 'refresh_token') {
        if (!form.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
        return this.connections.refresh(form.refresh_token, client.id, this.publicAddress.baseUrlFor(request), form.scope);
      }
      throw new OAuthError(
        'unsupported_grant_type',
        `grant_type must be authorization_code or refresh_token${form.grant_type ? `, not ${form.grant_type}` : ''}`,
      );
    });
  }

  @Post('revoke')
  async revoke(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, 200, async () => {
      const form = oauthParameters(request.body);
      const client = await this.client(request, form);
      if (!form.token) throw new OAuthError('invalid_request', 'token is required');
      await this.connections.revokeToken(form.token, client.id);
      return {};
    });
  }

  @Post('register')
  async register(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, 201, async () => {
      try {
        await this.registrations.consume(request.ip);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        void reply.header('retry-after', String(Math.ceil(rejection.msBeforeNext / 1000)));
        throw new OAuthError('too_many_requests', 'Too many client registrations from this address: try again later', 429);
      }
      try {
        return await this.clients.register(parseRegistration(request.body));
      } catch (error) {
        if (error instanceof ClientMetadataError) throw new OAuthError(error.code, error.message);
        throw error;
      }
    });
  }

  private async client(request: FastifyRequest, form: Record<string, string | undefined>) {
    try {
      return await this.clients.authenticate(clientCredentials(request, form));
    } catch (error) {
      if (error instanceof UnknownClientError) throw new OAuthError('invalid_client', error.message, 401);
      throw error;
    }
  }

  private async answer(reply: FastifyReply, status: number, step: () => Promise<unknown>): Promise<void> {
    try {
      const body = await step();
      void reply.code(status).headers(NO_STORE).send(body);
    } catch (error) {
      const refusal =
        error instanceof OAuthError
          ? error
          : error instanceof InvalidGrantError
            ? new OAuthError('invalid_grant', error.message)
            : error instanceof InvalidScopeError
              ? new OAuthError('invalid_scope', error.message)
              : undefined;
      if (!refusal) throw error;
      if (refusal.status === 401) void reply.header('www-authenticate', 'Basic realm="oauth"');
      void reply.code(refusal.status).headers(NO_STORE).send(refusal.toJSON());
    }
  }
}
