import { bool, defineConfigSection, int, isLoopback, list } from '@app/common';
import type { McpModuleSettings } from './mcp.module.js';
import { agentToolListsFrom } from './visibility/tool-visibility.js';

/**
 * The `/mcp` endpoint's keys; `HOST` (the app's) decides the default of `MCP_ALLOWED_HOSTS`. The
 * agents' tool lists (`ALLOWED_TOOLS_{NAME}`, `DISALLOWED_TOOLS_{NAME}`) have a key per agent, so
 * they are read from all the values rather than declared here.
 */
export const mcpConfig = defineConfigSection({
  keys: {
    MCP_SESSION_IDLE_SECONDS: int(1800, { min: 1, max: 7 * 24 * 3600 }),
    MCP_MAX_SESSIONS: int(10_000, { min: 1, max: 1_000_000 }),
    MCP_ALLOWED_HOSTS: list(),
    /** Serve session-less tools/call, tools/list and ping without the SDK's Protocol (proven equal by a differential test); false for the SDK path only. */
    MCP_FAST_LANE: bool(true),
  },
  toOptions: (values, env): Omit<McpModuleSettings, 'serverInfo'> => {
    const listed = env.MCP_ALLOWED_HOSTS ? values.MCP_ALLOWED_HOSTS : undefined;
    // Unset: the loopback names when bound to loopback (the SDK's default), else no check.
    const allowedHostnames = listed ?? (isLoopback(env.HOST || '127.0.0.1') ? undefined : []);
    return {
      sessionIdleMs: values.MCP_SESSION_IDLE_SECONDS * 1000,
      maxSessions: values.MCP_MAX_SESSIONS,
      fastLane: values.MCP_FAST_LANE,
      ...(allowedHostnames ? { allowedHostnames } : {}),
      agentTools: agentToolListsFrom(env),
    };
  },
});
