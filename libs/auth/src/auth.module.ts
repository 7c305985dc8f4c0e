import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { CALLER_RESOLVER } from '@app/common';
import { DatabaseModule } from '@app/database';
import { MCP_CALL_OBSERVER, MCP_RATE_LIMIT } from '@app/mcp';
import { AccessLog } from './access-log.js';
import { AccessLogRetention } from './access-log-retention.js';
import { AccountStatus } from './accounts/account-status.js';
import { AccountUserData } from './accounts/account-user-data.js';
import { MeController } from './accounts/me.controller.js';
import { UserDataService } from './accounts/user-data.service.js';
import { AdminAudit } from './admin/admin-audit.service.js';
import { AdminUsers } from './admin/admin-users.service.js';
import { AdminController } from './admin/admin.controller.js';
import { AUTH_OPTIONS, type AuthModuleOptions } from './auth.options.js';
import { AdminAuditEntity } from './entities/admin-audit.entity.js';
import { McpSecretEntity } from './entities/mcp-secret.entity.js';
import { ToolCallEntity } from './entities/tool-call.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { GENERATED_SECRET_FILE, jwtKeySource } from './jwt/jwt-secret.js';
import { JwtVerifier } from './jwt/jwt-verifier.js';
import { AuthCallerResolver } from './mcp-caller.resolver.js';
import { CreateAuthTables1796083200000 } from './migrations/1796083200000-create-auth-tables.js';
import { AddUserStatusAndAdminAudit1796095203000 } from './migrations/1796095203000-add-user-status-and-admin-audit.js';
import { StoreEmailVerification1796169600000 } from './migrations/1796169600000-store-email-verification.js';
import { IndexToolCallsByTime1796310000000 } from './migrations/1796310000000-index-tool-calls-by-time.js';
import { ProtectedResourceController } from './protected-resource.controller.js';
import { RateLimitGuard } from './rate-limit/rate-limit.guard.js';
import { RequestRateLimiter } from './rate-limit/request-rate-limiter.js';
import { CallerGuard } from './rest/caller.guard.js';
import { RouteRequirements } from './rest/route-requirements.js';
import { McpSecretsController } from './secrets/mcp-secrets.controller.js';
import { McpSecretsService } from './secrets/mcp-secrets.service.js';
import { JwtStrategy, McpSecretStrategy, STRATEGY_NAMES, strategyNames } from './strategies.js';
import { UsersService } from './users.service.js';

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
 * Who is calling: JWTs and personal MCP secrets, the users they stand for, the caller handed to
 * `/mcp` (`CALLER_RESOLVER`), the access log (`MCP_CALL_OBSERVER`), `/api/mcp-secrets`, the
 * RFC 9728 metadata, rate limits (`MCP_RATE_LIMIT` for `/mcp`), and the guards behind
 * `@Authenticated()`/`@AdminOnly()` for every other lib's routes. Global, so that the MCP module
 * finds its resolver, rate limit and observer and other libs' controllers find the guards. Needs
 * `CommonModule` (background writes).
 */
@Module({})
export class AuthModule {
  static forRoot(options: AuthModuleOptions): DynamicModule {
    // Names of this app's own in passport's process-wide registry (see `strategyNames`).
    const names = strategyNames();
    const passportModule = PassportModule.register({ defaultStrategy: names.jwt, session: false });
    return {
      module: AuthModule,
      global: true,
      imports: [
        DiscoveryModule,
        DatabaseModule.forFeature({
          entities: [UserEntity, McpSecretEntity, ToolCallEntity, AdminAuditEntity],
          migrations: [
            CreateAuthTables1796083200000,
            AddUserStatusAndAdminAudit1796095203000,
            StoreEmailVerification1796169600000,
            IndexToolCallsByTime1796310000000,
          ],
        }),
        passportModule,
      ],
      controllers: [McpSecretsController, ProtectedResourceController, MeController, AdminController],
      providers: [
        { provide: AUTH_OPTIONS, useValue: options },
        { provide: STRATEGY_NAMES, useValue: names },
        { provide: JwtVerifier, inject: [AUTH_OPTIONS], useFactory: createVerifier },
        UsersService,
        AccountStatus,
        AccountUserData,
        UserDataService,
        AdminAudit,
        AdminUsers,
        McpSecretsService,
        JwtStrategy,
        McpSecretStrategy,
        CallerGuard,
        RouteRequirements,
        RequestRateLimiter,
        RateLimitGuard,
        { provide: CALLER_RESOLVER, useClass: AuthCallerResolver },
        { provide: MCP_CALL_OBSERVER, useClass: AccessLog },
        AccessLogRetention,
        { provide: MCP_RATE_LIMIT, useExisting: RequestRateLimiter },
      ],
      exports: [
        AUTH_OPTIONS,
        AccessLogRetention,
        AdminUsers,
        passportModule,
        RequestRateLimiter,
        RateLimitGuard,
        CallerGuard,
        CALLER_RESOLVER,
        MCP_CALL_OBSERVER,
        MCP_RATE_LIMIT,
      ],
    };
  }
}
