import { Injectable, UnauthorizedException } from '@nestjs/common';
import passport from 'passport';
import type { FastifyRequest } from 'fastify';
import type { UserInfo } from '@app/mcp';
import { JWT_STRATEGY, JwtStrategy, MCP_SECRET_STRATEGY, McpSecretStrategy, type StrategyName } from './strategies.js';

/**
 * Runs the passport strategies. Each application gets a passport instance of its own rather than
 * the process-wide one `@nestjs/passport` registers into: two apps in one process (the tests do
 * this, with different keys and databases) would otherwise check each other's credentials.
 */
@Injectable()
export class PassportAuthenticator {
  private readonly passport = new passport.Passport();

  constructor(jwt: JwtStrategy, secret: McpSecretStrategy) {
    this.passport.use(JWT_STRATEGY, jwt);
    this.passport.use(MCP_SECRET_STRATEGY, secret);
  }

  /** The caller, or the strategy's HTTP exception (401 for a bad credential, 503 when the identity provider is unreachable). */
  authenticate(strategy: StrategyName, request: FastifyRequest): Promise<UserInfo> {
    return new Promise((resolve, reject) => {
      const middleware = this.passport.authenticate(strategy, { session: false }, (error: unknown, user: UserInfo | false) => {
        if (error) reject(error);
        else if (user) resolve(user);
        else reject(new UnauthorizedException());
      });
      middleware(request, undefined, reject);
    });
  }
}
