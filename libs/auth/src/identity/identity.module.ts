import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { CALLER_RESOLVER } from '@app/common';
import { DatabaseModule } from '@app/database';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { UsersModule } from '../users/users.module.js';
import { GENERATED_SECRET_FILE, jwtKeySource } from './jwt/jwt-secret.js';
import { JwtVerifier } from './jwt/jwt-verifier.js';
import { AuthCallerResolver } from './mcp-caller.resolver.js';
import { ProtectedResourceController } from './protected-resource.controller.js';
import { CallerGuard } from './rest/caller.guard.js';
import { RouteRequirements } from './rest/route-requirements.js';
import { McpSecretEntity } from './secrets/mcp-secret.entity.js';
import { McpSecretsController } from './secrets/mcp-secrets.controller.js';
import { McpSecretsService } from './secrets/mcp-secrets.service.js';
import { JwtStrategy, McpSecretStrategy, STRATEGY_NAMES, strategyNames } from './strategies.js';

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

/**
 * Credentials: JWTs and personal MCP secrets (`/api/mcp-secrets`), the passport strategies that
 * check them, the caller handed to `/mcp` (`CALLER_RESOLVER`), the guards behind
 * `@Authenticated()`/`@AdminOnly()`/`@Public()` and the start-up refusal of unguarded routes, and
 * the RFC 9728 metadata. Registered once per app: its passport strategies get names of their own.
 */
@Module({})
export class IdentityModule {
  static register(): DynamicModule {
    // Names of this app's own in passport's process-wide registry (see `strategyNames`).
    const names = strategyNames();
    const passportModule = PassportModule.register({ defaultStrategy: names.jwt, session: false });
    return {
      module: IdentityModule,
      imports: [DiscoveryModule, DatabaseModule.forFeature({ entities: [McpSecretEntity] }), passportModule, UsersModule, RateLimitModule],
      controllers: [McpSecretsController, ProtectedResourceController],
      providers: [
        { provide: STRATEGY_NAMES, useValue: names },
        { provide: JwtVerifier, inject: [AUTH_OPTIONS], useFactory: createVerifier },
        McpSecretsService,
        JwtStrategy,
        McpSecretStrategy,
        CallerGuard,
        RouteRequirements,
        { provide: CALLER_RESOLVER, useClass: AuthCallerResolver },
      ],
      exports: [passportModule, CallerGuard, CALLER_RESOLVER],
    };
  }
}
