import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { compactVerify, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, type JWK } from 'jose';
import { IsNull, type Repository } from 'typeorm';
import type { UserInfo } from '@app/common';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../../auth.options.js';
import { hashSecret } from '../../credentials.js';
import { UsersService } from '../../users/users.service.js';
import { ConnectionEntity } from './connection.entity.js';
import { RefreshTokenEntity } from './refresh-token.entity.js';
import { loadSigningKeys, type SigningKey } from './server-signing-keys.js';

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
}

/** A token response (RFC 6749 §5.1). */
export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** What the owner sees of a connection. */
export interface ConnectionView {
  id: string;
  client_id: string;
  client_name: string;
  client_verified: boolean;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An `invalid_grant` (RFC 6749 §5.2): the code, or here the refresh token, is not good. */
export class InvalidGrantError extends Error {}

/** An `invalid_scope` (RFC 6749 §5.2): a refresh asked for scopes other than those granted. */
export class InvalidScopeError extends Error {}

/**
 * The credentials of the built-in authorization server: connections (a user's grant to a client),
 * their ES256 access tokens and their single-use refresh tokens. An access token is checked by the
 * same path as every other credential (`JwtStrategy`), bound to this server's `/mcp` and to a live
 * connection, looked up on every use as MCP secrets are, so revoking the connection (by the user,
 * an admin, RFC 7009, or a reused refresh token) ends it at once on every instance.
 */
@Injectable()
export class ConnectionsService {
  private keys?: Promise<SigningKey[]>;

  constructor(
    @InjectRepository(ConnectionEntity) private readonly connections: Repository<ConnectionEntity>,
    @InjectRepository(RefreshTokenEntity) private readonly refreshTokens: Repository<RefreshTokenEntity>,
    @Inject(AUTH_OPTIONS) private readonly options: Pick<AuthModuleOptions, 'dataDir' | 'oauthSigningKeysFile'>,
    private readonly users: UsersService,
  ) {}

  /** The public keys, for the JWKS endpoint. */
  async publicKeys(): Promise<{ keys: JWK[] }> {
    return { keys: (await this.signingKeys()).map((key) => key.publicJwk) };
  }

  /** Opens a connection for what the user consented to, and issues its first tokens. */
  async connect(grant: ConnectionGrant): Promise<IssuedTokens> {
    const connection = await this.connections.save(
      this.connections.create({
        userId: grant.userId,
        clientId: grant.clientId,
        clientName: grant.clientName,
        clientVerified: grant.clientVerified,
        scope: grant.scopes.join(' '),
        resource: grant.resource,
      }),
    );
    return this.tokensFor(connection, grant.issuer);
  }

  /**
   * The next tokens for a refresh token of `clientId`. Each is good once: a used one presented
   * again is taken for a stolen copy and revokes the whole connection (OAuth 2.1 §4.3.1).
   * `requestedScope`, when the client sends one, must be the granted scopes: narrowing them on a
   * refresh is not offered, and is refused before the token is spent rather than ignored.
   */
  async refresh(refreshToken: string, clientId: string, issuer: string, requestedScope?: string): Promise<IssuedTokens> {
    const tokenHash = hashSecret(refreshToken);
    const stored = await this.refreshTokens.findOne({ where: { tokenHash }, relations: { connection: true } });
    const connection = stored?.connection;
    if (!stored || !connection || connection.clientId !== clientId) throw new InvalidGrantError('The refresh token is not valid for this client');
    if (requestedScope !== undefined && !sameScopes(requestedScope, connection.scope)) {
      throw new InvalidScopeError(`A refresh keeps the granted scopes ("${connection.scope}"); sign in again for others`);
    }
    const claimed = await this.refreshTokens.update({ tokenHash, usedAt: IsNull() }, { usedAt: new Date() });
    if (!claimed.affected) {
      await this.revokeConnection(connection.id);
      throw new InvalidGrantError('The refresh token was used before: the connection is revoked, sign in again');
    }
    if (connection.revokedAt) throw new InvalidGrantError('The connection is revoked: sign in again');
    if (stored.expiresAt.getTime() <= Date.now()) throw new InvalidGrantError('The refresh token has expired: sign in again');
    await this.connections.update({ id: connection.id }, { lastUsedAt: new Date() });
    return this.tokensFor(connection, issuer);
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

  /** The caller an access token of this server stands for, with its scopes, if it is for `resource` and its connection is live. */
  async callerFor(token: string, issuer: string, resource: string): Promise<UserInfo> {
    const keys = await this.signingKeys();
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
    const connection =
      typeof payload.cid === 'string' && UUID.test(payload.cid)
        ? await this.connections.findOne({ where: { id: payload.cid, revokedAt: IsNull() }, relations: { user: true } })
        : null;
    if (!connection?.user || connection.userId !== payload.sub) throw new UnauthorizedException('Invalid token: its connection is revoked');
    return { ...this.users.callerFromUser(connection.user), scopes: connection.scope.split(' ').filter(Boolean) };
  }

  private async tokensFor(connection: ConnectionEntity, issuer: string): Promise<IssuedTokens> {
    const [key] = await this.signingKeys();
    const accessToken = await new SignJWT({ scope: connection.scope, client_id: connection.clientId, cid: connection.id })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key!.kid })
      .setIssuer(issuer)
      .setSubject(connection.userId)
      .setAudience(connection.resource)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
      .setJti(randomUUID())
      .sign(key!.privateKey);
    const refreshToken = REFRESH_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    await this.refreshTokens.insert({
      tokenHash: hashSecret(refreshToken),
      connectionId: connection.id,
      expiresAt: new Date(Date.now() + REFRESH_TOKEN_SECONDS * 1000),
      usedAt: null,
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refreshToken, scope: connection.scope };
  }

  private async revokeConnection(id: string): Promise<void> {
    await this.connections.update({ id, revokedAt: IsNull() }, { revokedAt: new Date() });
  }

  /** The connection of an access token this server signed, expired or not (a client may revoke a token it holds past its life). */
  private async signedConnectionId(token: string): Promise<string | undefined> {
    const keys = await this.signingKeys();
    try {
      const key = keys.find((candidate) => candidate.kid === decodeProtectedHeader(token).kid);
      if (!key) return undefined;
      const { payload } = await compactVerify(token, key.publicKey, { algorithms: ['ES256'] });
      const cid = (JSON.parse(new TextDecoder().decode(payload)) as { cid?: unknown }).cid;
      return typeof cid === 'string' && UUID.test(cid) ? cid : undefined;
    } catch {
      return undefined;
    }
  }

  private signingKeys(): Promise<SigningKey[]> {
    this.keys ??= loadSigningKeys(this.options.oauthSigningKeysFile, this.options.dataDir);
    return this.keys;
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
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}
