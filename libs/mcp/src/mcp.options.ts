import type { Implementation, ServerContext } from '@modelcontextprotocol/server';
import type { AgentToolLists } from './visibility/tool-visibility.js';

export interface McpModuleOptions {
  serverInfo: Implementation;
  instructions?: string;
  /** Host names accepted in `Host`/`Origin` when bound to loopback (DNS-rebinding protection); empty disables the check. */
  allowedHostnames: string[];
  /** Idle time after which a 2025 session is closed. */
  sessionIdleMs: number;
  /** Most 2025 sessions kept at once; the least recently used is closed beyond it. */
  maxSessions: number;
  /** RFC 9728 metadata URL named in the `WWW-Authenticate` challenge of a 401, so OAuth clients find where to log in. */
  resourceMetadataUrl?: string;
  /** Verifies `requestState` echoed by clients on multi-round-trip calls (2026-07-28); defaults to `McpRequestState.verify`. */
  requestStateVerify?: (state: string, ctx: ServerContext) => unknown;
  /** `ALLOWED_TOOLS_{NAME}` / `DISALLOWED_TOOLS_{NAME}`: which tools, prompts and resources each agent sees. */
  agentTools?: AgentToolLists;
}

export const MCP_MODULE_OPTIONS = Symbol('MCP_MODULE_OPTIONS');

/** The signer of session ids and `requestState`: the app's `Signer` (@app/common), else one with a random key for this process. */
export const MCP_SIGNER = Symbol('MCP_SIGNER');
