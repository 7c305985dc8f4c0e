import type { ClientAuthMethod } from './identity-provider/client-authentication.js';

/** The company's OpenID Connect provider, where users of the built-in authorization server sign in. */
export interface IdentityProviderOptions {
  issuer: string;
  clientId: string;
  /** Absent for a public client (PKCE alone). */
  clientSecret?: string;
  /** How the secret goes to the token endpoint (`OIDC_CLIENT_AUTH_METHOD`); unset, as the provider's discovery document advertises. */
  clientAuthMethod?: ClientAuthMethod;
  /** Asked for at sign-in; always holds `openid`. */
  scopes: string[];
  /** The claim (a dotted path) whose values may make a user an admin; unset, a sign-in carries no roles. */
  rolesClaim?: string;
  /** The values of `rolesClaim` that make an admin (the `admin` role); the others grant nothing. */
  adminRoles?: string[];
  /** Lower-cased domains whose addresses count as verified when the provider sends no `email_verified`. */
  verifiedEmailDomains: string[];
}

/** The built-in authorization server's options: `oauthConfig`'s section. */
export interface OAuthModuleOptions {
  identityProvider: IdentityProviderOptions;
  /**
   * Issuers whose identity assertion grants (ID-JAG, by the JWT-bearer grant at `/token`) are
   * taken, their keys found through their discovery documents; empty, the grant is refused.
   */
  assertionIssuers: string[];
  /**
   * Lets the identity provider and client metadata documents be reached over plain http and on
   * loopback or private addresses: a whole sign-in on one machine (development, tests). Refused
   * with `NODE_ENV=production`.
   */
  allowInsecureDev: boolean;
  /** Dynamic client registrations one client IP address may make per hour (on all instances together with `REDIS_URL`). */
  registrationsPerHour: number;
  /** How long a dynamically registered client lives after its registration or its latest sign-in. */
  clientLifetimeSeconds: number;
  /** Extra CA certificates (PEM) trusted when fetching client metadata documents, besides Node's. */
  clientMetadataCa?: string;
}

export const OAUTH_OPTIONS = Symbol('OAUTH_OPTIONS');

/** The section of the app's configuration (`ConfigService`) that holds `OAuthModuleOptions`. */
export const OAUTH_CONFIG_SECTION = 'oauth';
