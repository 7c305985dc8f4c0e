export { AccessLogRetention, AccessLogStats, type LastHourOfCalls, type RecentToolError } from './access-log/index.js';
export { AdminUsers } from './admin/index.js';
export { AuthModule } from './auth.module.js';
export type { AuthModuleOptions, RateLimitOptions } from './auth.options.js';
export { sessionCookie, sessionCookieName } from './console-cookie.js';
export { hashSecret, SECRET_PREFIX } from './credentials.js';
export { RequestRateLimiter } from './rate-limit/index.js';
export {
  ConnectionsService,
  InvalidGrantError,
  InvalidScopeError,
  ProviderUnavailableError,
  type ConnectionGrant,
  type ConnectionView,
  type Connected,
  type IssuedTokens,
  type ProviderHeld,
  type ProviderRenewal,
  type RenewAtProvider,
} from './identity/connections/connections.service.js';
export { ServerKeys } from './identity/connections/server-keys.js';
export {
  AdminOnly,
  Authenticated,
  CallerGuard,
  CONSOLE_LINK_PATH,
  ConsoleSessions,
  createConsoleLink,
  CurrentCaller,
  JWT_SCHEME,
  MCP_SECRET_SCHEME,
  Public,
  signToken,
  type AuthenticatedRequest,
  type ConsoleLinkRequest,
  type OpenedSession,
  type TokenRequest,
} from './identity/index.js';
export { authConfig } from './auth.config.js';
export { AccountStatus, ADMIN_ROLE, claimAt, claimValues, UserEmails, UsersService, type TokenIdentity } from './users/index.js';
