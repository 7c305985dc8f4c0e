import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MCP_CALL_OBSERVER, MCP_CALLER_RESOLVER } from '@app/mcp';
import { AccessLog } from './access-log.js';
import { AUTH_OPTIONS, type AuthModuleOptions } from './auth.options.js';
import { BackgroundWrites } from './background-writes.js';
import { McpSecretEntity } from './entities/mcp-secret.entity.js';
import { ToolCallEntity } from './entities/tool-call.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { AdminGuard } from './guards/admin.guard.js';
import { JwtAuthGuard } from './guards/jwt-auth.guard.js';
import { GENERATED_SECRET_FILE, jwtKeySource } from './jwt/jwt-secret.js';
import { JwtVerifier } from './jwt/jwt-verifier.js';
import { AuthCallerResolver } from './mcp-caller.resolver.js';
import { ProtectedResourceController } from './protected-resource.controller.js';
import { RateLimitGuard } from './rate-limit/rate-limit.guard.js';
import { RequestRateLimiter } from './rate-limit/request-rate-limiter.js';
import { McpSecretsController } from './secrets/mcp-secrets.controller.js';
import { McpSecretsService } from './secrets/mcp-secrets.service.js';
import { JwtStrategy, McpSecretStrategy, STRATEGY_NAMES, strategyNames } from './strategies.js';
import { UsersService } from './users.service.js';

function createVerifier(options: AuthModuleOptions): JwtVerifier {
  const source = jwtKeySource(options);
  const logger = new Logger('Auth');
  if (source.mode === 'jwks') logger.log(`Checking tokens against the JWKS at ${source.url.href}`);
  else if (source.generated) logger.warn(`JWT_SECRET is not set: using the secret generated in ${options.DATA_DIR}/${GENERATED_SECRET_FILE}; instances sharing a database need one JWT_SECRET`);
  return new JwtVerifier(source, options);
}

/**
 * Who is calling: JWTs and personal MCP secrets, the users they stand for, the caller handed to
 * `/mcp` (`MCP_CALLER_RESOLVER`), the access log (`MCP_CALL_OBSERVER`), `/api/mcp-secrets`, the
 * RFC 9728 metadata, rate limits on `/mcp` and `/api`, and `JwtAuthGuard`/`AdminGuard` for other
 * routes. Global, so that the MCP module finds its resolver and observer. Its tables come with
 * `AUTH_MIGRATIONS`, which the app passes to the database module.
 */
@Module({})
export class AuthModule {
  static register(options: AuthModuleOptions): DynamicModule {
    // Names of this app's own in passport's process-wide registry (see `strategyNames`); the JWT
    // one is passport's default strategy, which `JwtAuthGuard` (an `AuthGuard()`) authenticates with.
    const names = strategyNames();
    const passportModule = PassportModule.register({ defaultStrategy: names.jwt, session: false });
    return {
      module: AuthModule,
      global: true,
      imports: [TypeOrmModule.forFeature([UserEntity, McpSecretEntity, ToolCallEntity]), passportModule],
      controllers: [McpSecretsController, ProtectedResourceController],
      providers: [
        { provide: AUTH_OPTIONS, useValue: options },
        { provide: STRATEGY_NAMES, useValue: names },
        { provide: JwtVerifier, inject: [AUTH_OPTIONS], useFactory: createVerifier },
        BackgroundWrites,
        UsersService,
        McpSecretsService,
        JwtStrategy,
        McpSecretStrategy,
        JwtAuthGuard,
        AdminGuard,
        RequestRateLimiter,
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: MCP_CALLER_RESOLVER, useClass: AuthCallerResolver },
        { provide: MCP_CALL_OBSERVER, useClass: AccessLog },
      ],
      exports: [AUTH_OPTIONS, passportModule, JwtAuthGuard, AdminGuard, BackgroundWrites, MCP_CALLER_RESOLVER, MCP_CALL_OBSERVER],
    };
  }
}
