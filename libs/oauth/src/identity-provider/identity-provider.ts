import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import type { TokenIdentity } from '@app/auth';
import { OAUTH_OPTIONS, type OAuthModuleOptions } from '../oauth.options.js';

/** What this server keeps of a sign-in it sends to the identity provider, to check the answer. */
export interface ProviderSignIn {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The identity provider refused or failed the sign-in; the message says how. */
export class ProviderSignInError extends Error {}

/**
 * The company's OpenID Connect provider, through `openid-client`: discovery (once, retried after a
 * failure), the authorization URL with PKCE, state and nonce, and the code exchange whose ID token
 * says who signed in. Claims map to a user as a JWT's do: subject, e-mail with whether it is
 * verified, name.
 */
@Injectable()
export class IdentityProvider {
  private configuration?: Promise<oidc.Configuration>;

  constructor(@Inject(OAUTH_OPTIONS) private readonly options: OAuthModuleOptions) {}

  async signIn(callbackUrl: string): Promise<ProviderSignIn> {
    const config = await this.discovered();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl,
      scope: this.options.identityProvider.scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state, nonce, codeVerifier };
  }

  /** Exchanges the code the provider sent back to `callbackUrl` (with its query) for who signed in. */
  async finishSignIn(callbackUrl: URL, expected: { state: string; nonce: string; codeVerifier: string }): Promise<TokenIdentity> {
    const config = await this.discovered();
    let tokens;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw new ProviderSignInError(`The identity provider's answer was refused: ${(error as Error).message}`);
    }
    const claims = tokens.claims()!;
    let { email, email_verified: emailVerified, name } = claims as { email?: unknown; email_verified?: unknown; name?: unknown };
    // Many providers (Keycloak by default, Entra ID) put the profile in the userinfo response rather than the ID token.
    if (email === undefined && tokens.access_token && config.serverMetadata().userinfo_endpoint) {
      const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      ({ email, email_verified: emailVerified, name = name } = userInfo);
    }
    return {
      issuer: claims.iss,
      subject: claims.sub,
      ...(typeof email === 'string' ? { email } : {}),
      emailVerified: emailVerified === true,
      ...(typeof name === 'string' ? { name } : {}),
      roles: [],
    };
  }

  private discovered(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const { issuer, clientId, clientSecret } = this.options.identityProvider;
      const insecure = new URL(issuer).protocol === 'http:';
      this.configuration = oidc.discovery(new URL(issuer), clientId, clientSecret, clientSecret ? oidc.ClientSecretPost(clientSecret) : oidc.None(), {
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
        timeout: 10,
      });
      this.configuration.catch(() => (this.configuration = undefined));
    }
    return this.configuration;
  }
}
