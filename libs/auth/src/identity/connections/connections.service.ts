import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable, UnauthorizedException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { compactVerify, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, type JWK } from 'jose';
import { IsNull, type Repository } from 'typeorm';
import { isUuid, type UserInfo } from '@app/common';
import { hashSecret } from '../../credentials.js';
import { AccountStatus } from '../../users/account-status.js';
import { UsersService } from '../../users/users.service.js';
import { ConnectionEntity } from './connection.entity.js';
import { RefreshTokenEntity } from './refresh-token.entity.js';
import { ServerKeys } from './server-keys.js';

/** How long an access token lives; its connection is looked up on every use all the same, so a revocation needs no wait. */
export const ACCESS_TOKEN_SECONDS = 600;
const REFRESH_TOKEN_SECONDS = 30 * 86_400;
const REFRESH_TOKEN_PREFIX = 'mrb_rt_';

/** What a user consented to: the client, the scopes and the resource its tokens are for, at this issuer. */
export interface ConnectionGrant {
  userId: string;
  clientId: string;
  clientName: string;
  clientVerified: boolean;
  scopes: readonly string[];
  /** This server's `/mcp` URL (RFC 8707); the tokens' audience. */
  resource: string;
  /** This server's authorization-server identifier; the tokens' `iss`. */
  issuer: string;
  /** The roles the identity provider vouched for at the sign-in (`admin`, or none). */
  roles?: readonly string[];
  /** The identity provider's refresh token from the sign-in, kept sealed so that each refresh asks the provider again. */
  providerRefreshToken?: string;
}

/** A token response (RFC 6749 §5.1); an identity provider's grant (ID-JAG) gets no refresh token. */
export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/** The connection a grant opened (or, for an identity provider's grant, took up again) and its tokens. */
export interface Connected {
  connectionId: string;
  tokens: IssuedTokens;
}

/** What the owner sees of a connection. */
export interface ConnectionView {
  id: string;
  client_id: string;
  client_name: string;
  client_verified: boolean;
  scopes: string[];
  /** The identity provider that granted it (an ID-JAG), or null when the user consented. */
  granted_by: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Whom a refresh asks the identity provider about: the user's (issuer, subject) and the provider's refresh token, if one is kept. */
export interface ProviderHeld {
  issuer: string;
  subject: string;
  providerRefreshToken?: string;
}

/** What the identity provider says at a refresh. */
export interface ProviderRenewal {
  /** The roles it vouches for now. */
  roles: readonly string[];
  /** Its next refresh token, when it rotated the one it was given. */
  providerRefreshToken?: string;
}

/**
 * Asks the identity provider again at a refresh. It throws `InvalidGrantError` when the provider
 * refuses (the account closed, the grant withdrawn): the connection is then revoked; any other
 * error (the provider unreachable) leaves the refresh token unspent, for the client to retry.
 */
export type RenewAtProvider = (held: ProviderHeld) => Promise<ProviderRenewal>;

/** An `invalid_grant` (RFC 6749 §5.2): the code, the refresh token or the assertion is not good, or its account is disabled. */
export class InvalidGrantError extends Error {}

/** An `invalid_scope` (RFC 6749 §5.2): a refresh asked for scopes other than those granted. */
export class InvalidScopeError extends Error {}

/** The identity provider a refresh must ask cannot be reached: the refresh token stays good, try again. */
export class ProviderUnavailableError extends Error {}

const DISABLED = 'The account is disabled: ask an administrator';

/**
 * The credentials of the built-in authorization server: connections (a user's grant to a client),
 * their ES256 access tokens and their single-use refresh tokens. An access token is checked by the
 * same path as every other credential (`JwtStrategy`), bound to this server's `/mcp` and to a live
 * connection, looked up on every use as MCP secrets are, so revoking the connection (by the user,
 * an admin, RFC 7009, or a reused refresh token) ends it at once on every instance. No grant gives a
 * token to a disabled account.
 */
@Injectable()
export class ConnectionsService {
  constructor(
    @InjectRepository(ConnectionEntity) private readonly connections: Repository<ConnectionEntity>,
    @InjectRepository(RefreshTokenEntity) private readonly refreshTokens: Repository<RefreshTokenEntity>,
    private readonly keys: ServerKeys,
    private readonly users: UsersService,
    private readonly accountStatus: AccountStatus,
  ) {}

  /** The public keys, for the JWKS endpoint. */
  async publicKeys(): Promise<{ keys: JWK[] }> {
    return { keys: (await this.keys.signingKeys()).map((key) => key.publicJwk) };
  }

  /** Opens a connection for what the user consented to, and issues its first tokens. */
  async connect(grant: ConnectionGrant): Promise<Connected> {
    await this.refuseDisabled(grant.userId);
    const connection = await this.connections.save(
      this.connections.create({
        ...this.grantedFields(grant),
        roles: [...(grant.roles ?? [])],
        providerRefreshToken: grant.providerRefreshToken ? await this.keys.seal(grant.providerRefreshToken) : null,
        assertionIssuer: null,
      }),
    );
    return { connectionId: connection.id, tokens: await this.tokensFor(connection, grant.issuer, { refreshable: true }) };
  }

  /**
   * An access token for what an identity provider granted (an ID-JAG from `assertionIssuer`), with
   * no refresh token: the client asks the provider for the next grant. The user's live connection
   * of that client, provider, scopes and resource is taken up again, so that their list does not
   * grow by one connection per token; revoking it ends the tokens already issued. Its roles are
   * the latest assertion's.
   */
  async connectByAssertion(grant: ConnectionGrant & { assertionIssuer: string }): Promise<Connected> {
    await this.refuseDisabled(grant.userId);
    const fields = this.grantedFields(grant);
    const roles = [...(grant.roles ?? [])];
    const live = await this.connections.findOneBy({
      userId: fields.userId,
      clientId: fields.clientId,
      assertionIssuer: grant.assertionIssuer,
      scope: fields.scope,
      resource: fields.resource,
      revokedAt: IsNull(),
    });
    if (live) await this.connections.update({ id: live.id }, { lastUsedAt: new Date(), roles });
    const connection = live
      ? { ...live, roles }
      : await this.connections.save(this.connections.create({ ...fields, roles, providerRefreshToken: null, assertionIssuer: grant.assertionIssuer }));
    return { connectionId: connection.id, tokens: await this.tokensFor(connection, grant.issuer, { refreshable: false }) };
  }

  /**
   * The next tokens for a refresh token of `clientId`. Each is good once: a used one presented
   * again is taken for a stolen copy and revokes the whole connection (OAuth 2.1 §4.3.1).
   * `requestedScope`, when the client sends one, must be the granted scopes: narrowing them on a
   * refresh is not offered, and is refused before the token is spent rather than ignored.
   * `renew` asks the identity provider again (roles, and whether it still vouches for the user);
   * without it the connection keeps no roles, since nobody vouched for them anew.
   */
  async refresh(refreshToken: string, clientId: string, issuer: string, requestedScope?: string, renew?: RenewAtProvider): Promise<IssuedTokens> {
    const tokenHash = hashSecret(refreshToken);
    const stored = await this.refreshTokens.findOne({ where: { tokenHash }, relations: { connection: { user: true } } });
    const connection = stored?.connection;
    if (!stored || !connection?.user || connection.clientId !== clientId) throw new InvalidGrantError('The refresh token is not valid for this client');
    if (requestedScope !== undefined && !sameScopes(requestedScope, connection.scope)) {
      throw new InvalidScopeError(`A refresh keeps the granted scopes ("${connection.scope}"); sign in again for others`);
    }
    // Before the token is spent: enabled again, the account refreshes with the same token.
    await this.refuseDisabled(connection.userId);
    const usedAt = new Date();
    const claimed = await this.refreshTokens.update({ tokenHash, usedAt: IsNull() }, { usedAt });
    if (!claimed.affected) {
      await this.revokeConnection(connection.id);
      throw new InvalidGrantError('The refresh token was used before: the connection is revoked, sign in again');
    }
    if (connection.revokedAt) throw new InvalidGrantError('The connection is revoked: sign in again');
    if (stored.expiresAt.getTime() <= Date.now()) throw new InvalidGrantError('The refresh token has expired: sign in again');
    const renewal = renew ? await this.renewed(connection, renew, () => this.refreshTokens.update({ tokenHash, usedAt }, { usedAt: null })) : { roles: [] };
    const providerRefreshToken = renewal.providerRefreshToken ? await this.keys.seal(renewal.providerRefreshToken) : connection.providerRefreshToken;
    const roles = [...renewal.roles];
    await this.connections.update({ id: connection.id }, { lastUsedAt: new Date(), roles, providerRefreshToken });
    return this.tokensFor({ ...connection, roles }, issuer, { refreshable: true });
  }

  /** What the identity provider says of the connection's user; a refusal revokes the connection, anything else gives the refresh token back. */
  private async renewed(connection: ConnectionEntity, renew: RenewAtProvider, release: () => Promise<unknown>): Promise<ProviderRenewal> {
    const sealed = connection.providerRefreshToken;
    const providerRefreshToken = sealed ? await this.keys.unseal(sealed) : undefined;
    try {
      return await renew({ issuer: connection.user!.issuer, subject: connection.user!.subject, ...(providerRefreshToken ? { providerRefreshToken } : {}) });
    } catch (error) {
      if (error instanceof InvalidGrantError) await this.revokeConnection(connection.id);
      else await release();
      throw error;
    }
  }

  /** RFC 7009: a refresh or access token of `clientId` revokes its connection; anything else is ignored, as the RFC asks. */
  async revokeToken(token: string, clientId: string): Promise<void> {
    const byRefresh = await this.refreshTokens.findOne({ where: { tokenHash: hashSecret(token) }, relations: { connection: true } });
    let connection = byRefresh?.connection;
    if (!connection && !token.startsWith(REFRESH_TOKEN_PREFIX)) {
      const connectionId = await this.signedConnectionId(token);
      connection = connectionId ? ((await this.connections.findOneBy({ id: connectionId })) ?? undefined) : undefined;
    }
    if (connection && connection.clientId === clientId) await this.revokeConnection(connection.id);
  }

  /** The user's connections, newest first. */
  async list(userId: string): Promise<ConnectionView[]> {
    const rows = await this.connections.find({ where: { userId }, order: { createdAt: 'DESC' } });
    return rows.map(toView);
  }

  /** Revokes one of the user's connections; false when they have none of that id (another user's included). */
  async revoke(userId: string, id: string): Promise<boolean> {
    const found = await this.connections.findOneBy({ id, userId });
    if (!found) return false;
    if (!found.revokedAt) await this.revokeConnection(id);
    return true;
  }

  /** True when `token` claims to come from this server's authorization server at `issuer` (not yet verified). */
  isIssuedBy(token: string, issuer: string): boolean {
    try {
      return decodeJwt(token).iss === issuer;
    } catch {
      return false;
    }
  }

  /** The caller an access token of this server stands for, with its scopes and roles, if it is for `resource` and its connection is live. */
  async callerFor(token: string, issuer: string, resource: string): Promise<UserInfo> {
    const keys = await this.keys.signingKeys();
    let payload;
    try {
      ({ payload } = await jwtVerify(
        token,
        (header) => {
          const key = keys.find((candidate) => candidate.kid === header.kid);
          if (!key) throw new UnauthorizedException('Invalid token: signed with a key this server does not hold');
          return key.publicKey;
        },
        { algorithms: ['ES256'], issuer, typ: 'at+jwt', requiredClaims: ['sub', 'exp', 'aud'] },
      ));
    } catch (error) {
      if (error instanceof UnauthorizedException) throw error;
      throw new UnauthorizedException(`Invalid token: ${(error as Error).message}`);
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.includes(resource)) throw new UnauthorizedException(`Invalid token: it is for ${audiences.join(', ')}, not ${resource}`);
    const connection = isUuid(payload.cid)
      ? await this.connections.findOne({ where: { id: payload.cid, revokedAt: IsNull() }, relations: { user: true } })
      : null;
    if (!connection?.user || connection.userId !== payload.sub) throw new UnauthorizedException('Invalid token: its connection is revoked');
    return {
      ...this.users.callerFromUser(connection.user, connection.roles),
      scopes: connection.scope.split(' ').filter(Boolean),
      grant: { kind: 'connection', id: connection.id },
    };
  }

  /** The scopes of a connection that is still live; null once it is revoked (or gone). */
  async liveScopes(id: string): Promise<string[] | null> {
    const connection = await this.connections.findOne({ where: { id, revokedAt: IsNull() }, select: { id: true, scope: true } });
    return connection ? connection.scope.split(' ').filter(Boolean) : null;
  }

  private async refuseDisabled(userId: string): Promise<void> {
    if (await this.accountStatus.isDisabledNow(userId)) throw new InvalidGrantError(DISABLED);
  }

  private grantedFields(grant: ConnectionGrant) {
    return {
      userId: grant.userId,
      clientId: grant.clientId,
      clientName: grant.clientName,
      clientVerified: grant.clientVerified,
      scope: grant.scopes.join(' '),
      resource: grant.resource,
    };
  }

  private async tokensFor(connection: ConnectionEntity, issuer: string, { refreshable }: { refreshable: boolean }): Promise<IssuedTokens> {
    const [key] = await this.keys.signingKeys();
    const accessToken = await new SignJWT({ scope: connection.scope, client_id: connection.clientId, cid: connection.id })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key!.kid })
      .setIssuer(issuer)
      .setSubject(connection.userId)
      .setAudience(connection.resource)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
      .setJti(randomUUID())
      .sign(key!.privateKey);
    const tokens: IssuedTokens = { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, scope: connection.scope };
    if (!refreshable) return tokens;
    const refreshToken = REFRESH_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    await this.refreshTokens.insert({
      tokenHash: hashSecret(refreshToken),
      connectionId: connection.id,
      expiresAt: new Date(Date.now() + REFRESH_TOKEN_SECONDS * 1000),
      usedAt: null,
    });
    return { ...tokens, refresh_token: refreshToken };
  }

  /** Revoked, a connection keeps no secret of the identity provider's. */
  private async revokeConnection(id: string): Promise<void> {
    await this.connections.update({ id, revokedAt: IsNull() }, { revokedAt: new Date(), providerRefreshToken: null });
  }

  /** The connection of an access token this server signed, expired or not (a client may revoke a token it holds past its life). */
  private async signedConnectionId(token: string): Promise<string | undefined> {
    const keys = await this.keys.signingKeys();
    try {
      const key = keys.find((candidate) => candidate.kid === decodeProtectedHeader(token).kid);
      if (!key) return undefined;
      const { payload } = await compactVerify(token, key.publicKey, { algorithms: ['ES256'] });
      const cid = (JSON.parse(new TextDecoder().decode(payload)) as { cid?: unknown }).cid;
      return isUuid(cid) ? cid : undefined;
    } catch {
      return undefined;
    }
  }
}

function sameScopes(a: string, b: string): boolean {
  const set = (scope: string) => [...new Set(scope.split(' ').filter(Boolean))].sort().join(' ');
  return set(a) === set(b);
}

function toView(row: ConnectionEntity): ConnectionView {
  return {
    id: row.id,
    client_id: row.clientId,
    client_name: row.clientName,
    client_verified: row.clientVerified,
    scopes: row.scope.split(' ').filter(Boolean),
    granted_by: row.assertionIssuer,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}
