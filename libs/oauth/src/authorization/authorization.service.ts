import { createHash, randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, MoreThan, type Repository } from 'typeorm';
import {
  AccountStatus,
  ConnectionsService,
  hashSecret,
  InvalidGrantError,
  ProviderUnavailableError,
  ServerKeys,
  UsersService,
  type IssuedTokens,
  type RenewAtProvider,
} from '@app/auth';
import { isUuid, ScopesSupported } from '@app/common';
import { redirectUriAllowed, type OAuthClient } from '../clients/client-metadata.js';
import { ClientsService, UnknownClientError } from '../clients/clients.service.js';
import { IdentityProvider, ProviderRefusedError, ProviderSignInError, ProviderUnreachableError } from '../identity-provider/identity-provider.js';
import { AuthorizationRequestEntity } from './authorization-request.entity.js';
import { OAuthError, redirectWith, SignInPageError, type RedirectTarget } from './oauth-error.js';

/** From `/authorize` to the consent decision: time to sign in at the identity provider. */
const SIGN_IN_SECONDS = 10 * 60;
/** OAuth 2.1 §4.1.2: a code lives at most a minute. */
export const CODE_SECONDS = 60;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
const CODE_PREFIX = 'mrb_ac_';

const random = () => randomBytes(32).toString('base64url');

/** The cookie that binds a sign-in to the browser that started it (its name carries the request's id). */
export const bindingCookieName = (requestId: string) => `mirobody_oauth_${requestId.replaceAll('-', '')}`;

/** Where this server is, as the client reached it: its issuer identifier and its MCP endpoint (RFC 8707 resource). */
export interface ServerAddress {
  issuer: string;
  resource: string;
}

/** Where `/authorize` sends the browser, and the cookie it sets. */
export interface SignInStart {
  providerUrl: string;
  binding: { name: string; value: string };
}

/** What the consent page shows, and the token its form sends back. */
export interface ConsentView {
  requestId: string;
  consentToken: string;
  clientName: string;
  clientId: string;
  clientVerified: boolean;
  redirectUri: string;
  scopes: string[];
  account: string;
}

/** A client's parameters to `/authorize` or `/token`, each given once. */
export type OAuthParameters = Record<string, string | undefined>;

/**
 * The authorization code flow of the built-in authorization server (OAuth 2.1 with PKCE S256,
 * RFC 8707 resource, RFC 9207 `iss`): `/authorize` checks the client and its request and sends
 * the user to the identity provider; the callback learns who signed in and shows the consent page;
 * the decision gives the client a single-use code good for a minute; `/token` turns it into a
 * connection (`ConnectionsService`) and its tokens, and each refresh of them asks the identity
 * provider again. Each step is a row in the database, bound to the browser that began it, so any
 * instance can take any step.
 */
@Injectable()
export class AuthorizationService {
  private readonly logger = new Logger('OAuth');

  constructor(
    @InjectRepository(AuthorizationRequestEntity) private readonly requests: Repository<AuthorizationRequestEntity>,
    private readonly clients: ClientsService,
    private readonly identityProvider: IdentityProvider,
    private readonly users: UsersService,
    private readonly accountStatus: AccountStatus,
    private readonly connections: ConnectionsService,
    private readonly scopesSupported: ScopesSupported,
    private readonly serverKeys: ServerKeys,
  ) {}

  /**
   * Checks an authorization request (RFC 6749 §4.1.1 with OAuth 2.1's rules). A bad client or
   * redirect URI is a `SignInPageError` (never a redirect to an unchecked address); anything else
   * wrong is an `OAuthError` to send back to the redirect URI.
   */
  async begin(params: OAuthParameters, server: ServerAddress): Promise<SignInStart> {
    const clientId = params.client_id;
    if (!clientId) throw new SignInPageError('Unknown app', 'The app sent no client_id: it cannot be signed in.');
    let client: OAuthClient;
    try {
      client = await this.clients.find(clientId);
    } catch (error) {
      if (error instanceof UnknownClientError) throw new SignInPageError('Unknown app', error.message);
      throw error;
    }
    const redirectUri = params.redirect_uri;
    if (!redirectUri) throw new SignInPageError('Wrong return address', `${client.name} sent no redirect_uri.`);
    if (!redirectUriAllowed(client.redirectUris, redirectUri))
      throw new SignInPageError('Wrong return address', `${redirectUri} is not a redirect URI ${client.name} registered, so the sign-in is not sent there.`);
    const target: RedirectTarget = { redirectUri, state: params.state ?? null, issuer: server.issuer };
    try {
      return await this.checkedBegin(params, client, server);
    } catch (error) {
      throw error instanceof OAuthError ? error.sentTo(target) : error;
    }
  }

  private async checkedBegin(params: OAuthParameters, client: OAuthClient, server: ServerAddress): Promise<SignInStart> {
    if (params.response_type !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be code');
    if (!params.code_challenge) throw new OAuthError('invalid_request', 'code_challenge is required (PKCE)');
    if (!CODE_CHALLENGE.test(params.code_challenge))
      throw new OAuthError('invalid_request', 'code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
    if (params.code_challenge_method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
    if (params.resource !== undefined && params.resource !== server.resource)
      throw new OAuthError('invalid_target', `resource must be this server's MCP endpoint, ${server.resource}`);
    const scopes = this.requestedScopes(params.scope);
    let signIn;
    try {
      signIn = await this.identityProvider.signIn(`${server.issuer}/oauth/callback`);
    } catch (error) {
      throw new OAuthError('temporarily_unavailable', `The identity provider cannot be reached: ${(error as Error).message}`);
    }
    const binding = random();
    const row = await this.requests.save(
      this.requests.create({
        providerState: signIn.state,
        providerCodeVerifier: signIn.codeVerifier,
        providerNonce: signIn.nonce,
        browserBindingHash: hashSecret(binding),
        issuer: server.issuer,
        clientId: client.id,
        clientName: client.name,
        clientVerified: client.verified,
        redirectUri: params.redirect_uri!,
        state: params.state ?? null,
        codeChallenge: params.code_challenge,
        scope: scopes.join(' '),
        resource: server.resource,
        expiresAt: new Date(Date.now() + SIGN_IN_SECONDS * 1000),
      }),
    );
    return { providerUrl: signIn.url.href, binding: { name: bindingCookieName(row.id), value: binding } };
  }

  /** The scopes asked for must be ones the tools use; without `scope`, all of them are asked for (and shown). */
  private requestedScopes(scope: string | undefined): string[] {
    const supported = this.scopesSupported.list();
    if (scope === undefined) return [...supported];
    const asked = [...new Set(scope.split(' ').filter(Boolean))];
    const unknown = asked.filter((name) => !supported.includes(name));
    if (unknown.length) throw new OAuthError('invalid_scope', `Unknown scope ${unknown.join(', ')}; this server offers: ${supported.join(' ') || 'none'}`);
    return asked.sort();
  }

  /**
   * The identity provider's answer: who signed in, for the consent page. Only the browser that
   * began the sign-in may finish it (its cookie), and only once.
   */
  async completeSignIn(callbackUrl: URL, cookies: Record<string, string>): Promise<ConsentView> {
    const state = callbackUrl.searchParams.get('state');
    // A state this server made is base64url; anything else (a NUL, which the database could not even compare) is unknown.
    const row = state && /^[\w-]+$/.test(state) ? await this.requests.findOneBy({ providerState: state, expiresAt: MoreThan(new Date()) }) : null;
    if (!row) throw new SignInPageError('Sign-in expired', 'This sign-in is unknown, finished or expired. Start again from your app.');
    this.checkBrowser(row, cookies);
    const providerError = callbackUrl.searchParams.get('error');
    if (providerError) {
      await this.requests.delete({ id: row.id });
      const description = callbackUrl.searchParams.get('error_description') ?? 'no sign-in';
      throw new OAuthError('access_denied', `The identity provider answered ${providerError}: ${description}`).sentTo(targetOf(row));
    }
    const claimed = await this.requests.update({ id: row.id, providerState: state! }, { providerState: null });
    if (!claimed.affected) throw new SignInPageError('Sign-in expired', 'This sign-in was finished already. Start again from your app.');
    let identity;
    try {
      identity = await this.identityProvider.finishSignIn(callbackUrl, {
        state: state!,
        nonce: row.providerNonce,
        codeVerifier: row.providerCodeVerifier,
      });
    } catch (error) {
      if (error instanceof ProviderSignInError) throw new SignInPageError('Sign-in failed', error.message, 502);
      throw error;
    }
    const caller = await this.users.callerFromToken(identity);
    if (await this.accountStatus.isDisabled(caller.userId))
      throw new SignInPageError('Account disabled', 'Your account on this server is disabled: ask an administrator.', 403);
    const consentToken = random();
    await this.requests.update(
      { id: row.id },
      {
        userId: caller.userId,
        consentTokenHash: hashSecret(consentToken),
        roles: identity.roles,
        providerRefreshToken: identity.refreshToken ? await this.serverKeys.seal(identity.refreshToken) : null,
      },
    );
    return {
      requestId: row.id,
      consentToken,
      clientName: row.clientName,
      clientId: row.clientId,
      clientVerified: row.clientVerified,
      redirectUri: row.redirectUri,
      scopes: row.scope.split(' ').filter(Boolean),
      account: caller.email ?? caller.name ?? caller.userId,
    };
  }

  /**
   * The user's answer on the consent page, from the browser that began the sign-in and with the
   * page's token (CSRF): where to send the browser, with a code or with `access_denied`.
   */
  async decide(form: OAuthParameters, cookies: Record<string, string>): Promise<string> {
    const requestId = form.request ?? '';
    const row = isUuid(requestId) ? await this.requests.findOneBy({ id: requestId.toLowerCase(), codeHash: IsNull(), expiresAt: MoreThan(new Date()) }) : null;
    if (!row?.userId || !row.consentTokenHash)
      throw new SignInPageError('Sign-in expired', 'This sign-in is unknown, finished or expired. Start again from your app.');
    this.checkBrowser(row, cookies);
    if (!form.consent_token || hashSecret(form.consent_token) !== row.consentTokenHash)
      throw new SignInPageError('Not confirmed', 'This answer did not come from the consent page this server showed you.', 403);
    const target = targetOf(row);
    if (form.decision !== 'allow') {
      await this.requests.delete({ id: row.id });
      return redirectWith(target, { error: 'access_denied', error_description: 'The user did not allow access' });
    }
    const code = CODE_PREFIX + random();
    const issued = await this.requests.update(
      { id: row.id, consentTokenHash: row.consentTokenHash, codeHash: IsNull() },
      { consentTokenHash: null, codeHash: hashSecret(code), codeExpiresAt: new Date(Date.now() + CODE_SECONDS * 1000) },
    );
    if (!issued.affected) throw new SignInPageError('Sign-in expired', 'This sign-in was answered already.');
    return redirectWith(target, { code });
  }

  /** RFC 6749 §4.1.3 with PKCE: the code, once, within its minute, by its client, with its verifier. */
  async exchangeCode(params: OAuthParameters, client: OAuthClient): Promise<IssuedTokens> {
    if (!params.code) throw new OAuthError('invalid_request', 'code is required');
    if (!params.code_verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
    const row = await this.requests.findOneBy({ codeHash: hashSecret(params.code) });
    if (!row || row.clientId !== client.id) throw new OAuthError('invalid_grant', 'The code is not valid for this client');
    if (row.codeUsedAt) return this.refuseReusedCode(row);
    if (row.codeExpiresAt!.getTime() <= Date.now()) throw new OAuthError('invalid_grant', `The code has expired (codes last ${CODE_SECONDS} s)`);
    if (params.redirect_uri !== undefined && params.redirect_uri !== row.redirectUri)
      throw new OAuthError('invalid_grant', 'redirect_uri is not the one the code was sent to');
    if (createHash('sha256').update(params.code_verifier).digest('base64url') !== row.codeChallenge)
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE)');
    if (params.resource !== undefined && params.resource !== row.resource)
      throw new OAuthError('invalid_target', `resource must be the one the code was issued for, ${row.resource}`);
    // Checked first, spent last: a wrong verifier (someone else holding the code) does not burn it for its client.
    const claimed = await this.requests.update({ id: row.id, codeUsedAt: IsNull() }, { codeUsedAt: new Date() });
    if (!claimed.affected) return this.refuseReusedCode(row);
    const providerRefreshToken = row.providerRefreshToken ? await this.serverKeys.unseal(row.providerRefreshToken) : undefined;
    // The code is spent: the provider's token leaves the sign-in's row whatever comes next.
    await this.requests.update({ id: row.id }, { providerRefreshToken: null });
    const { connectionId, tokens } = await this.connections.connect({
      userId: row.userId!,
      clientId: client.id,
      clientName: row.clientName,
      clientVerified: row.clientVerified,
      scopes: row.scope.split(' ').filter(Boolean),
      resource: row.resource,
      issuer: row.issuer,
      roles: row.roles,
      ...(providerRefreshToken ? { providerRefreshToken } : {}),
    });
    await this.requests.update({ id: row.id }, { connectionId });
    // The code presented again while this exchange ran: the reuse found no connection to revoke yet.
    if ((await this.requests.findOneByOrFail({ id: row.id })).codeReusedAt) return this.refuseReusedCode(row);
    if (!client.verified) await this.clients.keepAlive(client.id);
    this.logger.log(`User ${row.userId} connected ${row.clientName} (${client.id}) as connection ${connectionId}, scopes "${row.scope}"`);
    return tokens;
  }

  /**
   * RFC 6749 §6: the next tokens of a connection, once the identity provider vouched for its user
   * again (`renewAtProvider`): a role it removed is gone from the new tokens, and a user it no
   * longer knows gets none.
   */
  refresh(params: OAuthParameters, client: OAuthClient, issuer: string): Promise<IssuedTokens> {
    if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
    return this.connections.refresh(params.refresh_token, client.id, issuer, params.scope, this.renewAtProvider);
  }

  /**
   * What the identity provider says of a connection's user at a refresh, asked with the refresh
   * token it gave at the sign-in; the user's address, name and roles follow its answer. Without
   * such a token (the provider gave none) nobody vouches for roles any more, so there are none.
   */
  private readonly renewAtProvider: RenewAtProvider = async ({ providerRefreshToken, issuer, subject }) => {
    if (!providerRefreshToken) return { roles: [] };
    try {
      const identity = await this.identityProvider.renew(providerRefreshToken, { issuer, subject });
      await this.users.callerFromToken(identity);
      return { roles: identity.roles, ...(identity.refreshToken ? { providerRefreshToken: identity.refreshToken } : {}) };
    } catch (error) {
      if (error instanceof ProviderRefusedError) throw new InvalidGrantError(`${error.message}: the connection is revoked, sign in again`);
      if (error instanceof ProviderUnreachableError) throw new ProviderUnavailableError(error.message);
      throw error;
    }
  };

  /** RFC 6749 §4.1.2: a code presented twice may have been stolen, so what it gave is withdrawn. */
  private async refuseReusedCode(row: AuthorizationRequestEntity): Promise<never> {
    await this.requests.update({ id: row.id }, { codeReusedAt: new Date() });
    const { connectionId, userId } = await this.requests.findOneByOrFail({ id: row.id });
    if (connectionId && userId) await this.connections.revoke(userId, connectionId);
    this.logger.warn(
      `A code of ${row.clientId} was presented again: ${connectionId ? `connection ${connectionId} revoked` : 'the connection its first use is opening will be revoked'}`,
    );
    throw new OAuthError('invalid_grant', 'The code was used before: the tokens it gave are revoked');
  }

  private checkBrowser(row: AuthorizationRequestEntity, cookies: Record<string, string>): void {
    const binding = cookies[bindingCookieName(row.id)];
    if (!binding || hashSecret(binding) !== row.browserBindingHash)
      throw new SignInPageError('Another browser', 'This sign-in was started in another browser (or its cookie is gone). Start again from your app.', 403);
  }
}

const targetOf = (row: AuthorizationRequestEntity): RedirectTarget => ({ redirectUri: row.redirectUri, state: row.state, issuer: row.issuer });
