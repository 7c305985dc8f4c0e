export { AccessLogRetention } from './access-log-retention.js';
export { AdminUsers } from './admin/admin-users.service.js';
export { AuthModule } from './auth.module.js';
export type { AuthModuleOptions, AuthSectionOptions, RateLimitOptions } from './auth.options.js';
export { SECRET_PREFIX } from './credentials.js';
export { signToken, type TokenRequest } from './jwt/sign-token.js';
export { CallerGuard, type AuthenticatedRequest } from './rest/caller.guard.js';
export { AdminOnly, Authenticated, CurrentCaller, JWT_SCHEME, MCP_SECRET_SCHEME, Public } from './rest/decorators.js';
/** Moved to `@app/common`; still exported here for code written against the auth lib. */
export { BackgroundWrites } from '@app/common';
export { authConfig } from './auth.config.js';
