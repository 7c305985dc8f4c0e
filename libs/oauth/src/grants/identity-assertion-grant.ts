import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import * as oidc from 'openid-client';
import type { Repository } from 'typeorm';
import { ConnectionsService, UsersService, type IssuedTokens } from '@app/auth';
import { ScopesSupported } from '@app/common';
import type { OAuthParameters, ServerAddress } from '../authorization/authorization.service.js';
import { OAuthError } from '../authorization/oauth-error.js';
import type { OAuthClient } from '../clients/client-metadata.js';
import { IdentityProvider } from '../identity-provider/identity-provider.js';
import { identityFromClaims, UnusableClaimError, type ClaimRules } from '../identity-provider/provider-claims.js';
import { OAUTH_OPTIONS, type OAuthModuleOptions } from '../oauth.options.js';
import { UsedAssertionEntity } from './used-assertion.entity.js';

/** draft-ietf-oauth-identity-assertion-authz-grant: the `typ` of an ID-JAG, and the profile this server advertises. */
export const ID_JAG_TYPE = 'oauth-id-jag+jwt';
export const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
/** An assertion lives minutes: one issued for longer is refused, and none older than this is taken. */
export const MAX_ASSERTION_SECONDS = 300;
const CLOCK_SKEW_SECONDS = 60;
/** What identity providers sign with; never a shared secret, which would let anyone holding it mint grants. */
const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** The client id `openid-client` asks for; discovery of another issuer's keys uses no client. */
const NO_CLIENT = 'mirobody-assertion-verifier';

const invalid = (reason: string) => new OAuthError('invalid_grant', `The assertion is refused: ${reason}`);

/**
 * Enterprise-managed authorization (MCP 2026): the JWT-bearer grant (RFC 7523) with an identity
 * assertion grant (ID-JAG) from a trusted issuer (`OAUTH_ID_JAG_ISSUERS`, the sign-in provider by
 * default), which the company's identity provider issued to the client by token exchange (RFC 8693)
 * without a consent page. It is checked as the draft asks: signed by the issuer's published keys,
 * `typ` oauth-id-jag+jwt, `aud` this server's issuer (alone), `client_id` the client that
 * authenticated with its secret, `resource` (when given) this server's `/mcp`, scopes among the
 * tools' scopes, minutes long, and its `jti` used once on every instance (the database). The
 * subject is the user a sign-in of that provider makes; the answer is an access token alone.
 */
@Injectable()
export class IdentityAssertionGrant {
  private readonly logger = new Logger('OAuth');
  private readonly keySets = new Map<string, Promise<ReturnType<typeof createRemoteJWKSet>>>();

  constructor(
    @InjectRepository(UsedAssertionEntity) private readonly used: Repository<UsedAssertionEntity>,
    @Inject(OAUTH_OPTIONS) private readonly options: OAuthModuleOptions,
    private readonly identityProvider: IdentityProvider,
    private readonly users: UsersService,
    private readonly connections: ConnectionsService,
    private readonly scopesSupported: ScopesSupported,
  ) {}

  /** False when `OAUTH_ID_JAG_ISSUERS=none`: the grant is neither offered nor taken. */
  get offered(): boolean {
    return this.options.assertionIssuers.length > 0;
  }

  /** The access token an identity assertion grant (`assertion`) gives `client`; `/token` calls it only when the grant is `offered`. */
  async exchange(params: OAuthParameters, client: OAuthClient, server: ServerAddress): Promise<IssuedTokens> {
    // The draft's advice: a client that proves nothing but its id could present any assertion issued for that id.
    if (client.authMethod === 'none')
      throw new OAuthError(
        'unauthorized_client',
        'An identity assertion grant needs a client that authenticates with its secret; public clients sign the user in instead',
      );
    if (!params.assertion) throw new OAuthError('invalid_request', 'assertion is required');
    if (params.resource !== undefined && params.resource !== server.resource)
      throw new OAuthError('invalid_target', `resource must be this server's MCP endpoint, ${server.resource}`);
    const claims = await this.verified(params.assertion, server.issuer);
    if (claims.client_id !== client.id) throw invalid(`it was issued for client ${JSON.stringify(claims.client_id)}, not ${client.id}`);
    const resources = claims.resource === undefined ? [] : [claims.resource].flat();
    if (resources.length && !resources.includes(server.resource)) throw invalid(`it is for ${resources.join(', ')}, not ${server.resource}`);
    const scopes = this.grantedScopes(claims.scope, params.scope);
    const identity = this.identityOf(claims);
    await this.spend(claims);
    const caller = await this.users.callerFromToken(identity);
    const { connectionId, tokens } = await this.connections.connectByAssertion({
      userId: caller.userId,
      clientId: client.id,
      clientName: client.name,
      clientVerified: client.verified,
      scopes,
      resource: server.resource,
      issuer: server.issuer,
      roles: identity.roles,
      assertionIssuer: identity.issuer,
    });
    this.logger.log(
      `${identity.issuer} granted ${client.name} (${client.id}) access for user ${caller.userId} as connection ${connectionId}, scopes "${tokens.scope}"`,
    );
    return tokens;
  }

  /** The assertion's claims, once its issuer is trusted and its signature, type, audience and times are good. */
  private async verified(assertion: string, audience: string): Promise<JWTPayload> {
    let issuer: unknown;
    try {
      issuer = decodeJwt(assertion).iss;
    } catch {
      throw invalid('it is not a JWT');
    }
    if (typeof issuer !== 'string' || !this.options.assertionIssuers.includes(issuer))
      throw invalid(`its issuer ${JSON.stringify(issuer ?? null)} is not one this server trusts (OAUTH_ID_JAG_ISSUERS)`);
    const keySet = await this.keySetOf(issuer);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(assertion, keySet, {
        typ: ID_JAG_TYPE,
        algorithms: ASYMMETRIC_ALGORITHMS,
        issuer,
        audience,
        clockTolerance: CLOCK_SKEW_SECONDS,
        maxTokenAge: MAX_ASSERTION_SECONDS + CLOCK_SKEW_SECONDS,
        requiredClaims: ['sub', 'aud', 'exp', 'iat', 'jti', 'client_id'],
      }));
    } catch (error) {
      if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError))
        throw new OAuthError('temporarily_unavailable', `The keys of ${issuer} cannot be fetched; try again later`, 503);
      throw invalid((error as Error).message);
    }
    if (Array.isArray(payload.aud) && payload.aud.length !== 1) throw invalid('its aud must name this server alone');
    if (payload.exp! - payload.iat! > MAX_ASSERTION_SECONDS)
      throw invalid(`it is issued for ${payload.exp! - payload.iat!} s, more than ${MAX_ASSERTION_SECONDS} s`);
    const jti = payload.jti!;
    if (jti.length > 256 || jti.includes('\u0000') || !jti.isWellFormed()) throw invalid('its jti must be at most 256 characters of text');
    return payload;
  }

  /** The issuer's published keys, found through its discovery document, cached and refetched (at most every 30 s) for an unknown key id. */
  private keySetOf(issuer: string): Promise<ReturnType<typeof createRemoteJWKSet>> {
    let keySet = this.keySets.get(issuer);
    if (!keySet) {
      keySet = this.discoveredKeysUrl(issuer).then((url) => createRemoteJWKSet(url, { timeoutDuration: 5000, cooldownDuration: 30_000 }));
      this.keySets.set(issuer, keySet);
      keySet.catch(() => this.keySets.delete(issuer));
    }
    return keySet.catch((error: unknown) => {
      throw new OAuthError('temporarily_unavailable', `The discovery document of ${issuer} cannot be read (${(error as Error).message}); try again later`, 503);
    });
  }

  private async discoveredKeysUrl(issuer: string): Promise<URL> {
    const config =
      issuer === this.options.identityProvider.issuer
        ? await this.identityProvider.discovered()
        : await oidc.discovery(new URL(issuer), NO_CLIENT, undefined, undefined, {
            ...(new URL(issuer).protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
            timeout: 10,
          });
    const jwksUri = config.serverMetadata().jwks_uri;
    if (!jwksUri) throw new Error('it names no jwks_uri');
    return new URL(jwksUri);
  }

  /**
   * The scopes the access token gets: those the assertion grants (none when it names none), or the
   * fewer the client asks for; each must be one the tools use.
   */
  private grantedScopes(assertionScope: unknown, requested: string | undefined): string[] {
    if (assertionScope !== undefined && typeof assertionScope !== 'string') throw invalid('its scope must be a space-separated string');
    const granted = [...new Set((assertionScope ?? '').split(' ').filter(Boolean))];
    const supported = this.scopesSupported.list();
    const unknown = granted.filter((scope) => !supported.includes(scope));
    if (unknown.length)
      throw new OAuthError('invalid_scope', `The assertion grants ${unknown.join(', ')}, which this server does not offer: ${supported.join(' ') || 'none'}`);
    if (requested === undefined) return granted.sort();
    const asked = [...new Set(requested.split(' ').filter(Boolean))];
    const beyond = asked.filter((scope) => !granted.includes(scope));
    if (beyond.length) throw new OAuthError('invalid_scope', `The assertion does not grant ${beyond.join(', ')}`);
    return asked.sort();
  }

  /**
   * Who the assertion speaks for, mapped as a sign-in at its issuer is: the sign-in provider's
   * assertion by its rules (roles, trusted e-mail domains), another trusted issuer's with neither.
   */
  private identityOf(claims: JWTPayload) {
    const provider = this.options.identityProvider;
    const rules: ClaimRules = claims.iss === provider.issuer ? provider : { verifiedEmailDomains: [] };
    try {
      return identityFromClaims(claims, rules);
    } catch (error) {
      if (error instanceof UnusableClaimError) throw invalid(error.message);
      throw error;
    }
  }

  /** Records the `jti` (issuer-scoped); one already recorded, here or on another instance, is a replay. */
  private async spend(claims: JWTPayload): Promise<void> {
    const expiresAt = new Date((claims.exp! + CLOCK_SKEW_SECONDS) * 1000);
    const recorded: unknown[] = await this.used.query(
      'INSERT INTO oauth_used_assertions (issuer, jti, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING jti',
      [claims.iss, claims.jti, expiresAt],
    );
    if (!recorded.length) throw invalid('its jti was used before: an assertion is good once');
  }
}
