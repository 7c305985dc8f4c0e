import type { Implementation, ServerContext } from '@modelcontextprotocol/server';

export interface McpModuleOptions {
  serverInfo: Implementation;
  instructions?: string;
  /** Host names accepted in `Host`/`Origin` when bound to loopback (DNS-rebinding protection); empty disables the check. */
  allowedHostnames: string[];
  /** Idle time after which a 2025 session is closed. */
  sessionIdleMs: number;
  /** Most 2025 sessions kept at once; the least recently used is closed beyond it. */
  maxSessions: number;
  /** Key that signs session ids, shared by every instance behind one load balancer. */
  sessionSecret: string;
  /** RFC 9728 metadata URL named in the `WWW-Authenticate` challenge of a 401, so OAuth clients find where to log in; a path alone is taken at the address the request came to. */
  resourceMetadataUrl?: string;
  /** Verifies `requestState` echoed by clients on multi-round-trip calls (2026-07-28); defaults to `McpRequestState.verify`. */
  requestStateVerify?: (state: string, ctx: ServerContext) => unknown;
}

export const MCP_MODULE_OPTIONS = Symbol('MCP_MODULE_OPTIONS');
