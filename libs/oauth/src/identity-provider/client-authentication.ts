import * as oidc from 'openid-client';

/** How this server proves itself to the identity provider's token endpoint with `OIDC_CLIENT_SECRET`. */
export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/**
 * The method to use: `OIDC_CLIENT_AUTH_METHOD` when set; otherwise what the provider's discovery
 * document advertises (`token_endpoint_auth_methods_supported`): HTTP Basic when it lists it, or
 * lists nothing (RFC 8414's default then is Basic), the form body when it lists only that.
 */
export function clientAuthMethod(configured: ClientAuthMethod | undefined, advertised: readonly string[] | undefined): ClientAuthMethod {
  if (configured) return configured;
  if (!advertised || advertised.includes('client_secret_basic')) return 'client_secret_basic';
  return advertised.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

/** openid-client's client authentication, the method chosen when a request is made (the discovery document is known by then). */
export function clientAuthentication(secret: string, configured: ClientAuthMethod | undefined): oidc.ClientAuth {
  const basic = oidc.ClientSecretBasic(secret);
  const post = oidc.ClientSecretPost(secret);
  return (server, client, body, headers) =>
    (clientAuthMethod(configured, server.token_endpoint_auth_methods_supported) === 'client_secret_post' ? post : basic)(server, client, body, headers);
}
