export { IdentityModule } from './identity.module.js';
export { signToken, type TokenRequest } from './jwt/sign-token.js';
export { CallerGuard, type AuthenticatedRequest } from './rest/caller.guard.js';
export { AdminOnly, Authenticated, CurrentCaller, JWT_SCHEME, MCP_SECRET_SCHEME, Public } from './rest/decorators.js';
export { McpSecretEntity } from './secrets/mcp-secret.entity.js';
export { CONSOLE_LINK_PATH, createConsoleLink, type ConsoleLinkRequest } from './console-sessions/console-link.js';
export { ConsoleSessions, type OpenedSession } from './console-sessions/console-sessions.service.js';
