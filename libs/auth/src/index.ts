export { AccessLogRetention } from './access-log/index.js';
export { AdminUsers } from './admin/index.js';
export { AuthModule } from './auth.module.js';
export type { AuthModuleOptions, RateLimitOptions } from './auth.options.js';
export { hashSecret, SECRET_PREFIX } from './credentials.js';
export {
  ConnectionsService,
  InvalidGrantError,
  InvalidScopeError,
  type ConnectionGrant,
  type ConnectionView,
  type IssuedTokens,
} from './identity/connections/connections.service.js';
export {
  AdminOnly,
  Authenticated,
  CallerGuard,
  CurrentCaller,
  JWT_SCHEME,
  MCP_SECRET_SCHEME,
  Public,
  signToken,
  type AuthenticatedRequest,
  type TokenRequest,
} from './identity/index.js';
export { authConfig } from './auth.config.js';
export { AccountStatus, UsersService, type TokenIdentity } from './users/index.js';
