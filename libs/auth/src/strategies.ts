import { Injectable, UnauthorizedException } from '@nestjs/common';
import CustomStrategy from 'passport-custom';
import type { FastifyRequest } from 'fastify';
import type { UserInfo } from '@app/mcp';
import { presentedCredential, type PresentedCredential } from './credentials.js';
import { JwtVerifier } from './jwt/jwt-verifier.js';
import { McpSecretsService } from './secrets/mcp-secrets.service.js';
import { UsersService } from './users.service.js';

export const JWT_STRATEGY = 'jwt';
export const MCP_SECRET_STRATEGY = 'mcp-secret';
export type StrategyName = typeof JWT_STRATEGY | typeof MCP_SECRET_STRATEGY;

/** passport-custom hands the request over as Express types it; here it is Fastify's. */
type Verify = (request: FastifyRequest) => Promise<UserInfo>;

function verifyWith(verify: Verify): CustomStrategy.VerifyCallback {
  return (request, done) => {
    verify(request as unknown as FastifyRequest).then((user) => done(null, user), done);
  };
}

function credentialOf(request: FastifyRequest, kind: PresentedCredential['kind']): string {
  const credential = presentedCredential(request);
  if (!credential) throw new UnauthorizedException('Authentication required: send Authorization: Bearer <token>');
  if (credential.kind !== kind) {
    throw new UnauthorizedException(kind === 'jwt' ? 'This endpoint takes a JWT, not an MCP secret' : 'Expected an MCP secret');
  }
  return credential.token;
}

/** A bearer JWT: verified by `JwtVerifier`, then the user is found or created. */
@Injectable()
export class JwtStrategy extends CustomStrategy {
  constructor(verifier: JwtVerifier, users: UsersService) {
    super(verifyWith(async (request) => users.callerFromToken(await verifier.verify(credentialOf(request, 'jwt')))));
  }
}

/** A personal MCP secret, from the Authorization header or the `/mcp/<secret>` path. */
@Injectable()
export class McpSecretStrategy extends CustomStrategy {
  constructor(secrets: McpSecretsService, users: UsersService) {
    super(verifyWith(async (request) => users.callerFromUser(await secrets.owner(credentialOf(request, 'secret')))));
  }
}
