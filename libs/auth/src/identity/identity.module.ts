import { Logger, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { CALLER_RESOLVER } from '@app/common';
import { DatabaseModule } from '@app/database';
import { AuthOptionsModule } from '../auth-options.module.js';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { UsersModule } from '../users/users.module.js';
import { GENERATED_SECRET_FILE, jwtKeySource } from './jwt/jwt-secret.js';
import { ConnectionEntity } from './connections/connection.entity.js';
import { ConsoleCredential } from './console-sessions/console-credential.js';
import { ConsoleLinkRedemptionEntity, ConsoleSessionEntity } from './console-sessions/console-session.entity.js';
import { ConsoleSessionController } from './console-sessions/console-session.controller.js';
import { ConsoleSessions } from './console-sessions/console-sessions.service.js';
import { ConnectionsController } from './connections/connections.controller.js';
import { ConnectionsService } from './connections/connections.service.js';
import { ServerKeys } from './connections/server-keys.js';
import { RefreshTokenEntity } from './connections/refresh-token.entity.js';
import { JwtVerifier } from './jwt/jwt-verifier.js';
import { AuthCallerResolver } from './mcp-caller.resolver.js';
import { ProtectedResourceController } from './protected-resource.controller.js';
import { CallerGuard } from './rest/caller.guard.js';
import { RouteRequirements } from './rest/route-requirements.js';
import { McpSecretEntity } from './secrets/mcp-secret.entity.js';
import { McpSecretsController } from './secrets/mcp-secrets.controller.js';
import { McpSecretsService } from './secrets/mcp-secrets.service.js';
import { JwtStrategy, McpSecretStrategy, STRATEGY_NAMES, strategyNames, type StrategyNames } from './strategies.js';
import { MCP_CALLER_STANDING } from '@app/mcp';
import { CallerStandings } from './caller-standing.js';

function createVerifier(options: AuthModuleOptions): JwtVerifier {
  const source = jwtKeySource(options);
  const logger = new Logger('Auth');
  if (source.mode === 'jwks') logger.log(`Checking tokens against the JWKS at ${source.url.href}`);
  else if (source.generated)
    logger.warn(
      `JWT_SECRET is not set: using the secret generated in ${options.dataDir}/${GENERATED_SECRET_FILE}; instances sharing a database need one JWT_SECRET`,
    );
  return new JwtVerifier(source, options);
}

/** This app's names for its strategies, made when the app is built (see `strategyNames`). */
@Module({
  providers: [{ provide: STRATEGY_NAMES, useFactory: strategyNames }],
  exports: [STRATEGY_NAMES],
})
class StrategyNamesModule {}

/** `@nestjs/passport`'s module, with this app's JWT strategy as `AuthGuard()`'s default. */
const passportModule = PassportModule.registerAsync({
  imports: [StrategyNamesModule],
  inject: [STRATEGY_NAMES],
  useFactory: (names: StrategyNames) => ({ defaultStrategy: names.jwt, session: false }),
});

/**
 * Credentials: JWTs, personal MCP secrets (`/api/mcp-secrets`), the connections of the built-in
 * authorization server (`/api/me/connections`, their ES256 tokens) and the web console's sessions
 * (its cookie, for `/api` and `/admin` only), the passport strategies that
 * check them, the caller handed to `/mcp` (`CALLER_RESOLVER`), the guards behind
 * `@Authenticated()`/`@AdminOnly()`/`@Public()` and the start-up refusal of unguarded routes, and
 * the RFC 9728 metadata. A module that uses the guards imports this one (through `AuthModule`):
 * it exports what they inject.
 */
@Module({
  imports: [
    DiscoveryModule,
    DatabaseModule.forFeature({ entities: [McpSecretEntity, ConnectionEntity, RefreshTokenEntity, ConsoleSessionEntity, ConsoleLinkRedemptionEntity] }),
    AuthOptionsModule,
    StrategyNamesModule,
    passportModule,
    UsersModule,
    RateLimitModule,
  ],
  controllers: [McpSecretsController, ConnectionsController, ProtectedResourceController, ConsoleSessionController],
  providers: [
    { provide: JwtVerifier, inject: [AUTH_OPTIONS], useFactory: createVerifier },
    McpSecretsService,
    ConnectionsService,
    ServerKeys,
    ConsoleSessions,
    ConsoleCredential,
    JwtStrategy,
    McpSecretStrategy,
    CallerGuard,
    RouteRequirements,
    { provide: CALLER_RESOLVER, useClass: AuthCallerResolver },
    { provide: MCP_CALLER_STANDING, useClass: CallerStandings },
  ],
  exports: [
    passportModule,
    AuthOptionsModule,
    RateLimitModule,
    CallerGuard,
    CALLER_RESOLVER,
    MCP_CALLER_STANDING,
    ConnectionsService,
    ServerKeys,
    ConsoleSessions,
    ConsoleCredential,
  ],
})
export class IdentityModule {}
