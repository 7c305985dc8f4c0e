import { Controller, Get, Inject } from '@nestjs/common';
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
  metadata() {
    const { PUBLIC_BASE_URL, OAUTH_ISSUER } = this.options;
    return {
      resource: `${PUBLIC_BASE_URL}/mcp`,
      ...(OAUTH_ISSUER ? { authorization_servers: [OAUTH_ISSUER] } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'Mirobody',
    };
  }
}
