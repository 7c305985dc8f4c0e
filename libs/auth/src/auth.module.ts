import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { AccessLogModule } from './access-log/access-log.module.js';
import { AdminModule } from './admin/admin.module.js';
import { AUTH_OPTIONS, type AuthModuleOptions } from './auth.options.js';
import { IdentityModule } from './identity/identity.module.js';
import { CreateAuthTables1796083200000 } from './migrations/1796083200000-create-auth-tables.js';
import { AddUserStatusAndAdminAudit1796095203000 } from './migrations/1796095203000-add-user-status-and-admin-audit.js';
import { StoreEmailVerification1796169600000 } from './migrations/1796169600000-store-email-verification.js';
import { IndexToolCallsByTime1796310000000 } from './migrations/1796310000000-index-tool-calls-by-time.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import { UserDataModule } from './user-data/user-data.module.js';
import { UsersModule } from './users/users.module.js';

/**
 * Who is calling, and what follows from it, one folder and module per job: `users/` (the users
 * table), `rate-limit/`, `identity/` (JWTs, MCP secrets, strategies, the guards, `CALLER_RESOLVER`),
 * `access-log/` (`MCP_CALL_OBSERVER`), `user-data/` (export and erasure, `/api/me`) and `admin/`
 * (the admin area and its audit). This module configures them (`AUTH_OPTIONS`) and runs the auth
 * tables' migrations. Global, so that the MCP module finds its resolver, rate limit and observer,
 * other libs' controllers find the guards, and tool modules of a deployment inject the same
 * instances without configuring anything; needs `CommonModule` (background writes, contributors).
 */
@Module({})
export class AuthModule {
  static forRoot(options: AuthModuleOptions): DynamicModule {
    const identity = IdentityModule.register();
    return {
      module: AuthModule,
      global: true,
      imports: [
        DatabaseModule.forFeature({
          migrations: [
            CreateAuthTables1796083200000,
            AddUserStatusAndAdminAudit1796095203000,
            StoreEmailVerification1796169600000,
            IndexToolCallsByTime1796310000000,
          ],
        }),
        UsersModule,
        RateLimitModule,
        identity,
        AccessLogModule,
        UserDataModule,
        AdminModule,
      ],
      providers: [{ provide: AUTH_OPTIONS, useValue: options }],
      exports: [AUTH_OPTIONS, RateLimitModule, identity, AccessLogModule, AdminModule],
    };
  }
}
