import { Controller, Get, Inject, Req } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiTag, PublicAddress, ScopesSupported } from '@app/common';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';
import { Public } from './rest/decorators.js';

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): names the MCP endpoint as the resource and
 * the authorization server to get tokens from, so OAuth-capable MCP clients find where to log in,
 * and the scopes tools require (`scopes_supported`).
 * Served at the root and at the path-suffixed address the RFC derives for `/mcp`.
 */
@ApiTag('oauth')
@Controller('.well-known')
@Public()
export class ProtectedResourceController {
  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: AuthModuleOptions,
    private readonly publicAddress: PublicAddress,
    private readonly scopes: ScopesSupported,
  ) {}

  @Get('oauth-protected-resource')
  @ApiOperation({ summary: 'Describe the MCP endpoint as an OAuth protected resource (RFC 9728)' })
  metadata(@Req() request: FastifyRequest) {
    const baseUrl = this.publicAddress.baseUrlFor(request);
    const authorizationServer = this.options.oauthMode === 'builtin' ? baseUrl : this.options.oauthIssuer;
    const scopes = this.scopes.list();
    // MCP clients compare `resource` with the URL they were given.
    return {
      resource: `${baseUrl}/mcp`,
      ...(authorizationServer ? { authorization_servers: [authorizationServer] } : {}),
      ...(scopes.length ? { scopes_supported: scopes } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'Mirobody',
    };
  }

  /** A method of its own rather than a second path of `metadata`, so that each address has an operationId of its own. */
  @Get('oauth-protected-resource/mcp')
  @ApiOperation({ summary: 'Describe the MCP endpoint, at the address RFC 9728 derives for /mcp' })
  mcpMetadata(@Req() request: FastifyRequest) {
    return this.metadata(request);
  }
}
