import { Controller, Get, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AUTH_OPTIONS, type AuthModuleOptions } from './auth.options.js';

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): names the MCP endpoint as the resource and
 * the authorization server to get tokens from, so OAuth-capable MCP clients find where to log in.
 * Served at the root and at the path-suffixed address the RFC derives for `/mcp`.
 */
@Controller('.well-known')
export class ProtectedResourceController {
  constructor(@Inject(AUTH_OPTIONS) private readonly options: AuthModuleOptions) {}

  @Get(['oauth-protected-resource', 'oauth-protected-resource/mcp'])
  metadata(@Req() request: FastifyRequest) {
    const { publicBaseUrl, publicBaseUrlConfigured, oauthIssuer } = this.options;
    // MCP clients compare `resource` with the URL they were given; without a configured public
    // address, that is the address this request came to (localhost and 127.0.0.1 both work).
    const base = publicBaseUrlConfigured === false ? `${request.protocol}://${request.host}` : publicBaseUrl;
    return {
      resource: `${base}/mcp`,
      ...(oauthIssuer ? { authorization_servers: [oauthIssuer] } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'Mirobody',
    };
  }
}
