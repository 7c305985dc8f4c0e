import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitVerdict } from '@app/mcp';
import { ConnectionsService, InvalidGrantError, InvalidScopeError, ProviderUnavailableError, Public, RequestRateLimiter } from '@app/auth';
import { PublicAddress, ScopesSupported } from '@app/common';
import { AuthorizationService, type ServerAddress } from '../authorization/authorization.service.js';
import { OAuthError } from '../authorization/oauth-error.js';
import { ClientMetadataError, JWT_BEARER_GRANT, parseRegistration } from '../clients/client-metadata.js';
import { ClientsService, UnknownClientError } from '../clients/clients.service.js';
import { ID_JAG_PROFILE, IdentityAssertionGrant } from '../grants/identity-assertion-grant.js';
import { OAUTH_OPTIONS, type OAuthModuleOptions } from '../oauth.options.js';
import { clientCredentials, oauthParameters } from './parameters.js';

/** RFC 6749 §5.1: token responses, and errors about them, are never cached. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/**
 * The built-in authorization server's endpoints for clients: its metadata (RFC 8414) and keys,
 * `/token` (codes, refresh tokens, and identity providers' grants), `/revoke` (RFC 7009) and
 * `/register` (RFC 7591, limited per address across instances). Errors are RFC 6749's
 * `{ error, error_description }`.
 */
@ApiExcludeController()
@Controller()
@Public()
export class TokenController {
  private readonly registrations: (address: string) => Promise<RateLimitVerdict>;

  constructor(
    private readonly authorization: AuthorizationService,
    private readonly assertions: IdentityAssertionGrant,
    private readonly clients: ClientsService,
    private readonly connections: ConnectionsService,
    private readonly publicAddress: PublicAddress,
    private readonly scopes: ScopesSupported,
    limiter: RequestRateLimiter,
    @Inject(OAUTH_OPTIONS) options: OAuthModuleOptions,
  ) {
    this.registrations = limiter.budget('oauth-register', options.registrationsPerHour, 3600);
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
      grant_types_supported: this.grantTypes(),
      ...(this.assertions.offered ? { authorization_grant_profiles_supported: [ID_JAG_PROFILE] } : {}),
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
      if (form.grant_type === 'refresh_token') return this.authorization.refresh(form, client, this.publicAddress.baseUrlFor(request));
      if (form.grant_type === JWT_BEARER_GRANT && this.assertions.offered) return this.assertions.exchange(form, client, this.serverAddress(request));
      throw new OAuthError('unsupported_grant_type', `grant_type must be ${this.grantTypes().join(', ')}${form.grant_type ? `, not ${form.grant_type}` : ''}`);
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
      const verdict = await this.registrations(request.ip);
      if (!verdict.allowed) {
        void reply.header('retry-after', String(verdict.retryAfterSeconds));
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

  /** The JWT-bearer grant (ID-JAG) only when some issuer is trusted for it (`OAUTH_ID_JAG_ISSUERS`). */
  private grantTypes(): string[] {
    return ['authorization_code', 'refresh_token', ...(this.assertions.offered ? [JWT_BEARER_GRANT] : [])];
  }

  private serverAddress(request: FastifyRequest): ServerAddress {
    const issuer = this.publicAddress.baseUrlFor(request);
    return { issuer, resource: `${issuer}/mcp` };
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
              : error instanceof ProviderUnavailableError
                ? new OAuthError('temporarily_unavailable', `${error.message}; the refresh token is still good, try again later`, 503)
                : undefined;
      if (!refusal) throw error;
      if (refusal.status === 401) void reply.header('www-authenticate', 'Basic realm="oauth"');
      if (refusal.status === 503) void reply.header('retry-after', '5');
      void reply.code(refusal.status).headers(NO_STORE).send(refusal.toJSON());
    }
  }
}
