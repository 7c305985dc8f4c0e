import { CreateAuthTables1796083200000 } from './migrations/1796083200000-create-auth-tables.js';
import { StoreEmailVerification1796169600000 } from './migrations/1796169600000-store-email-verification.js';

export { AuthModule } from './auth.module.js';
export type { AuthModuleOptions } from './auth.options.js';
export { BackgroundWrites } from './background-writes.js';
export { SECRET_PREFIX } from './credentials.js';
export { AdminGuard } from './guards/admin.guard.js';
export { ApiCaller, JwtAuthGuard } from './guards/jwt-auth.guard.js';
export { signToken, type TokenRequest } from './jwt/sign-token.js';

/** The auth tables' migrations, for `DatabaseModule.forRoot({ migrations })`. */
export const AUTH_MIGRATIONS = [CreateAuthTables1796083200000, StoreEmailVerification1796169600000];
