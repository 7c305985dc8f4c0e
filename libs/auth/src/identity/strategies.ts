import { Inject, Injectable, UnauthorizedException, type OnModuleDestroy } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import passport, { type Strategy } from 'passport';
import CustomStrategy from 'passport-custom';
import type { FastifyRequest } from 'fastify';
import { AUTHENTICATION_REQUIRED, PublicAddress } from '@app/common';
import type { UserInfo } from '@app/common';
import { presentedCredential, type PresentedCredential } from '../credentials.js';
import { ConnectionsService } from './connections/connections.service.js';
import { JwtVerifier } from './jwt/jwt-verifier.js';
import { RequestRateLimiter } from '../rate-limit/request-rate-limiter.js';
import { McpSecretsService } from './secrets/mcp-secrets.service.js';
import { UsersService } from '../users/users.service.js';

export const JWT_STRATEGY = 'jwt';
export const MCP_SECRET_STRATEGY = 'mcp-secret';

/** The names one app's strategies go by in passport (made once per app, when it is built). */
export interface StrategyNames {
  jwt: string;
  secret: string;
}
export const STRATEGY_NAMES = Symbol('STRATEGY_NAMES');

let registrations = 0;

/**
 * Passport keeps strategies by name in one process-wide registry, which both the
 * `PassportStrategy` mixin and `AuthGuard` use. Under the shared names, two apps in one process
 * (the tests boot several at once, with their own keys and databases) would check each other's
 * credentials; so each app gets names of its own.
 */
export function strategyNames(): StrategyNames {
  const registration = ++registrations;
  return { jwt: `${JWT_STRATEGY}#${registration}`, secret: `${MCP_SECRET_STRATEGY}#${registration}` };
}

/** Moves a strategy from the shared name the mixin registered it under to its app's own. */
function registerAs(strategy: Strategy, shared: string, own: string): void {
  passport.unuse(shared);
  passport.use(own, strategy);
}

function credentialOf(request: FastifyRequest, kind: PresentedCredential['kind']): PresentedCredential {
  const credential = presentedCredential(request);
  if (!credential) throw new UnauthorizedException(AUTHENTICATION_REQUIRED);
  if (credential.kind !== kind) {
    throw new UnauthorizedException(kind === 'jwt' ? 'This endpoint takes a JWT, not an MCP secret' : 'Expected an MCP secret');
  }
  return credential;
}

/** The one route the built-in authorization server's tokens are for (RFC 8707): they open nothing else. */
const MCP_ROUTE = '/mcp';

/**
 * A bearer JWT: one of the built-in authorization server's (its `iss` is this server), checked by
 * `ConnectionsService` and good on `/mcp` alone; any other is verified by `JwtVerifier`, then the
 * user is found or created.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(CustomStrategy, JWT_STRATEGY) implements OnModuleDestroy {
  constructor(
    private readonly verifier: JwtVerifier,
    private readonly users: UsersService,
    private readonly limiter: RequestRateLimiter,
    private readonly connections: ConnectionsService,
    private readonly publicAddress: PublicAddress,
    @Inject(STRATEGY_NAMES) private readonly names: StrategyNames,
  ) {
    super();
    registerAs(this, JWT_STRATEGY, names.jwt);
  }

  /** passport-custom hands the request over as Express types it; here it is Fastify's. */
  async validate(request: FastifyRequest): Promise<UserInfo> {
    const credential = credentialOf(request, 'jwt');
    const issuer = this.publicAddress.baseUrlFor(request);
    // A token verified a moment ago is not decoded again to read its issuer.
    const verified = this.verifier.verifiedBefore(credential.token);
    const issuedHere = verified ? verified.issuer === issuer : this.connections.isIssuedBy(credential.token, issuer);
    const caller = issuedHere
      ? await this.connectedCaller(credential.token, issuer, request)
      : await this.users.callerFromToken(verified ?? (await this.verifier.verify(credential.token)));
    this.limiter.markVerified(credential);
    return caller;
  }

  private connectedCaller(token: string, issuer: string, request: FastifyRequest): Promise<UserInfo> {
    const resource = issuer + MCP_ROUTE;
    if (request.routeOptions.url !== MCP_ROUTE) throw new UnauthorizedException(`Invalid token: it is for ${resource} alone`);
    return this.connections.callerFor(token, issuer, resource);
  }

  onModuleDestroy(): void {
    passport.unuse(this.names.jwt);
  }
}

/** A personal MCP secret, from the Authorization header or the `/mcp/<secret>` path. */
@Injectable()
export class McpSecretStrategy extends PassportStrategy(CustomStrategy, MCP_SECRET_STRATEGY) implements OnModuleDestroy {
  constructor(
    private readonly secrets: McpSecretsService,
    private readonly users: UsersService,
    private readonly limiter: RequestRateLimiter,
    @Inject(STRATEGY_NAMES) private readonly names: StrategyNames,
  ) {
    super();
    registerAs(this, MCP_SECRET_STRATEGY, names.secret);
  }

  async validate(request: FastifyRequest): Promise<UserInfo> {
    const credential = credentialOf(request, 'secret');
    const { id, user, agent } = await this.secrets.holder(credential.token);
    const caller: UserInfo = { ...this.users.callerFromUser(user), grant: { kind: 'mcp-secret', id } };
    this.limiter.markVerified(credential);
    return agent ? { ...caller, agent } : caller;
  }

  onModuleDestroy(): void {
    passport.unuse(this.names.secret);
  }
}
