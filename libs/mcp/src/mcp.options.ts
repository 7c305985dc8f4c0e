import type { Implementation, ServerContext } from '@modelcontextprotocol/server';
import type { ApprovalPolicyOverrides } from './approvals/approval-policy.js';
import type { AgentToolLists } from './visibility/tool-visibility.js';

export interface McpModuleOptions {
  serverInfo: Implementation;
  instructions?: string;
  /** Host names accepted in `Host`/`Origin` when bound to loopback (DNS-rebinding protection); empty disables the check. */
  allowedHostnames: string[];
  /** Idle time after which a 2025 session is closed. */
  sessionIdleMs: number;
  /** Most 2025 sessions kept at once; beyond it the least recently used anonymous one is closed, else the least recently used. */
  maxSessions: number;
  /** Most live sessions one user, or one client address without a credential, may hold; `initialize` beyond it answers 429. */
  maxSessionsPerCaller: number;
  /** Lifetime of a session id, signed into it: past it the id is refused on every instance. */
  sessionMaxAgeMs: number;
  /** RFC 9728 metadata URL named in the `WWW-Authenticate` challenge of a 401, so OAuth clients find where to log in; a path alone is taken at the address the request came to. */
  resourceMetadataUrl?: string;
  /**
   * Every request needs a credential: an anonymous one gets the 401 challenge, whatever it asks for.
   * OAuth clients (Claude, ChatGPT, Cursor) start signing in on that 401 when they connect; while
   * anonymous requests are served, they connect anonymously and see only the tools that need nobody.
   */
  requireCredential?: boolean;
  /** Serves session-less `tools/call`, `tools/list` and `ping` without the SDK's `Protocol` (see `FastLane`); false sends everything through the SDK. */
  fastLane: boolean;
  /** Verifies `requestState` echoed by clients on multi-round-trip calls (2026-07-28); defaults to `McpRequestState.verify`. */
  requestStateVerify?: (state: string, ctx: ServerContext) => unknown;
  /** `ALLOWED_TOOLS_{NAME}` / `DISALLOWED_TOOLS_{NAME}`: which tools, prompts and resources each agent sees. */
  agentTools?: AgentToolLists;
  /** `APPROVALS_CALLER_TOOLS`, `APPROVALS_APPROVER_TOOLS`, `APPROVALS_EXEMPT_TOOLS`: this deployment's approval policies, over what the tools declare. */
  approvalPolicies?: ApprovalPolicyOverrides;
}

export const MCP_MODULE_OPTIONS = Symbol('MCP_MODULE_OPTIONS');

/** The signer of session ids and `requestState`: the app's `Signer` (@app/common), else one with a random key for this process. */
export const MCP_SIGNER = Symbol('MCP_SIGNER');
