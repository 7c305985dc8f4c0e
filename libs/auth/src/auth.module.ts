import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { AccessLogModule } from './access-log/access-log.module.js';
import { AdminModule } from './admin/admin.module.js';
import { IdentityModule } from './identity/identity.module.js';
import { CreateAuthTables1796083200000 } from './migrations/1796083200000-create-auth-tables.js';
import { AddUserStatusAndAdminAudit1796095203000 } from './migrations/1796095203000-add-user-status-and-admin-audit.js';
import { StoreEmailVerification1796169600000 } from './migrations/1796169600000-store-email-verification.js';
import { IndexToolCallsByTime1796310000000 } from './migrations/1796310000000-index-tool-calls-by-time.js';
import { CreateOauthConnections1796450062000 } from './migrations/1796450062000-create-oauth-connections.js';
import { CreateConsoleSessions1797300100000 } from './migrations/1797300100000-create-console-sessions.js';
import { StoreUserRoles1797300200000 } from './migrations/1797300200000-store-user-roles.js';
import { IndexAdminAuditFilters1797300300000 } from './migrations/1797300300000-index-admin-audit-filters.js';
import { RecordToolCallOutcomes1797400200000 } from './migrations/1797400200000-record-tool-call-outcomes.js';
import { StoreConnectionProviderGrants1797410000000 } from './migrations/1797410000000-store-connection-provider-grants.js';
import { RecordAdminAddresses1797700000000 } from './migrations/1797700000000-record-admin-addresses.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import { UserDataModule } from './user-data/user-data.module.js';
import { UsersModule } from './users/users.module.js';

/**
 * Who is calling, and what follows from it, one folder and module per job: `users/` (the users
 * table), `rate-limit/`, `identity/` (JWTs, MCP secrets, strategies, the guards, `CALLER_RESOLVER`),
 * `access-log/` (`MCP_CALL_OBSERVER`), `user-data/` (export and erasure, `/api/me`) and `admin/`
 * (the admin area and its audit). This module composes them and runs the auth tables' migrations.
 *
 * Its options are the app configuration's `auth` section (`AUTH_OPTIONS`). A module whose routes
 * use `@Authenticated()`, `@AdminOnly()` or `@Public()` imports it, as does the app's `McpModule` for
 * the resolver, rate limit and observer `/mcp` takes; needs `CommonModule` (background writes,
 * user-data contributors).
 */
@Module({
  imports: [
    DatabaseModule.forFeature({
      migrations: [
        CreateAuthTables1796083200000,
        AddUserStatusAndAdminAudit1796095203000,
        StoreEmailVerification1796169600000,
        IndexToolCallsByTime1796310000000,
        CreateOauthConnections1796450062000,
        CreateConsoleSessions1797300100000,
        StoreUserRoles1797300200000,
        IndexAdminAuditFilters1797300300000,
        RecordToolCallOutcomes1797400200000,
        StoreConnectionProviderGrants1797410000000,
        RecordAdminAddresses1797700000000,
      ],
    }),
    UsersModule,
    RateLimitModule,
    IdentityModule,
    AccessLogModule,
    UserDataModule,
    AdminModule,
  ],
  exports: [UsersModule, IdentityModule, AccessLogModule, AdminModule],
})
export class AuthModule {}
