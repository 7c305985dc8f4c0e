import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import type { TokenIdentity } from '@app/auth';
import { OAUTH_OPTIONS, type OAuthModuleOptions } from '../oauth.options.js';
import { identityFromClaims, lacksProfile, UnusableClaimError } from './provider-claims.js';
import { clientAuthentication } from './client-authentication.js';

/** What this server keeps of a sign-in it sends to the identity provider, to check the answer. */
export interface ProviderSignIn {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Who signed in (or was vouched for again at a refresh), with the provider's refresh token when it gave one. */
export interface ProviderIdentity extends TokenIdentity {
  /** Kept sealed with the connection, so that its next refresh asks the provider again. */
  refreshToken?: string;
}

/** The identity provider refused or failed the sign-in; the message says how. */
export class ProviderSignInError extends Error {}

/** At a refresh, the identity provider no longer vouches for the user (its grant was withdrawn, the account closed). */
export class ProviderRefusedError extends Error {}

/** At a refresh, the identity provider could not be asked (unreachable, or an answer this server cannot read). */
export class ProviderUnreachableError extends Error {}

/**
 * The company's OpenID Connect provider, through `openid-client`: discovery (once, retried after a
 * failure), the authorization URL with PKCE, state and nonce, and the code exchange whose ID token
 * (with the userinfo response where the token lacks the address or the roles) says who signed in;
 * the claims map to a user by `identityFromClaims`, roles included. Nothing of the client's request
 * (its `resource`, its scopes) is passed on: Entra ID refuses a `resource` it does not know
 * (AADSTS9010010). Used by `/authorize` and by the web console's own sign-in.
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
  async finishSignIn(callbackUrl: URL, expected: { state: string; nonce: string; codeVerifier: string }): Promise<ProviderIdentity> {
    const config = await this.discovered();
    let tokens;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      return await this.identityOf(config, tokens, tokens.claims()!.sub);
    } catch (error) {
      throw new ProviderSignInError(`The identity provider's answer was refused: ${(error as Error).message}`);
    }
  }

  /**
   * Asks the provider again about a user, with the refresh token it gave: who it vouches for now
   * (roles included), and its next refresh token. A refusal (`invalid_grant`), or an answer about
   * someone else, is a `ProviderRefusedError`; anything else a `ProviderUnreachableError`.
   */
  async renew(refreshToken: string, expected: { issuer: string; subject: string }): Promise<ProviderIdentity> {
    let tokens;
    let config;
    try {
      config = await this.discovered();
      tokens = await oidc.refreshTokenGrant(config, refreshToken);
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant')
        throw new ProviderRefusedError(`The identity provider refused the refresh: ${error.error_description ?? error.error}`);
      throw new ProviderUnreachableError(`The identity provider could not be asked: ${(error as Error).message}`);
    }
    let identity: ProviderIdentity;
    try {
      identity = await this.identityOf(config, tokens, tokens.claims()?.sub ?? expected.subject);
    } catch (error) {
      throw new ProviderUnreachableError(`The identity provider's answer could not be read: ${(error as Error).message}`);
    }
    if (identity.issuer !== expected.issuer || identity.subject !== expected.subject)
      throw new ProviderRefusedError('The identity provider answered the refresh for another user');
    return { ...identity, refreshToken: identity.refreshToken ?? refreshToken };
  }

  /**
   * Who the tokens stand for: the ID token's claims, with the userinfo response's where the token
   * lacks the address or the roles (Okta's ID token, Keycloak's by default, hold few claims).
   * After a refresh without an ID token, userinfo alone speaks for `subject`.
   */
  private async identityOf(config: oidc.Configuration, tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers, subject: string) {
    const rules = this.options.identityProvider;
    let claims: Record<string, unknown> = tokens.claims() ?? { iss: config.serverMetadata().issuer, sub: subject };
    if (lacksProfile(claims, rules) && tokens.access_token && config.serverMetadata().userinfo_endpoint) {
      const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, subject);
      claims = { ...userInfo, ...claims };
    }
    try {
      return { ...identityFromClaims(claims, rules), ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}) };
    } catch (error) {
      if (error instanceof UnusableClaimError) throw new ProviderSignInError(error.message);
      throw error;
    }
  }

  /** The provider's discovery document, for `openid-client` and for the issuer's published keys (ID-JAG). */
  discovered(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const { issuer, clientId, clientSecret, clientAuthMethod } = this.options.identityProvider;
      const insecure = new URL(issuer).protocol === 'http:';
      const authentication = clientSecret ? clientAuthentication(clientSecret, clientAuthMethod) : oidc.None();
      this.configuration = oidc.discovery(new URL(issuer), clientId, clientSecret, authentication, {
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
        timeout: 10,
      });
      this.configuration.catch(() => (this.configuration = undefined));
    }
    return this.configuration;
  }
}
