import { bool, ConfigError, defineConfigSection, int, isLoopback, list, parseUrl } from '@app/common';
import type { McpModuleSettings } from './mcp.module.js';
import { agentToolListsFrom } from './visibility/tool-visibility.js';

/**
 * A host name as `Host` and `Origin` carry it, less the port: a DNS name, an IPv4 address or a
 * bracketed IPv6 one. A scheme, a port or a path would never match, refusing every request.
 */
const HOST_NAME = /^(\[[\da-f:.]+\]|[a-z\d]([a-z\d-]*[a-z\d])?(\.[a-z\d]([a-z\d-]*[a-z\d])?)*)$/i;

/** The form the SDK compares (`new URL().hostname`: lower case, IPv6 compressed), so that `MCP.Example.com` and `[0::1]` match. */
function comparedHostname(name: string): string {
  try {
    return new URL(`http://${name}`).hostname;
  } catch {
    throw new ConfigError('MCP_ALLOWED_HOSTS', `expected host names such as mcp.example.com or [::1], got "${name}"`);
  }
}

/**
 * The `/mcp` endpoint's keys; `HOST` (the app's) decides the default of `MCP_ALLOWED_HOSTS`. The
 * agents' tool lists (`ALLOWED_TOOLS_{NAME}`, `DISALLOWED_TOOLS_{NAME}`) have a key per agent, so
 * they are read from all the values rather than declared here.
 */
export const mcpConfig = defineConfigSection({
  keys: {
    MCP_SESSION_IDLE_SECONDS: int(1800, { min: 1, max: 7 * 24 * 3600 }),
    MCP_MAX_SESSIONS: int(10_000, { min: 1, max: 1_000_000 }),
    /** Most live sessions per user, or per client address without a credential. */
    MCP_MAX_SESSIONS_PER_CALLER: int(100, { min: 1, max: 1_000_000 }),
    /** A session id's lifetime, signed into it. */
    MCP_SESSION_MAX_AGE_SECONDS: int(24 * 3600, { min: 60, max: 30 * 24 * 3600 }),
    MCP_ALLOWED_HOSTS: list([], { item: HOST_NAME, expected: 'host names such as mcp.example.com or [::1], without scheme, port or path' }),
    /** Serve tools/call, tools/list and ping without the SDK's Protocol, session-less, in live sessions and on 2026-07-28 (proven equal by a differential test); false for the SDK path only. */
    MCP_FAST_LANE: bool(true),
    /** Refuse anonymous requests with the 401 challenge; unset, true with OAUTH_MODE=builtin (so OAuth clients sign in when they connect) and false otherwise. */
    MCP_REQUIRE_CREDENTIAL: bool(false),
  },
  toOptions: (values, env): Omit<McpModuleSettings, 'serverInfo'> => {
    const listed = env.MCP_ALLOWED_HOSTS ? values.MCP_ALLOWED_HOSTS.map(comparedHostname) : undefined;
    const allowedHostnames = listed ?? defaultAllowedHosts(env.HOST || '127.0.0.1', env.PUBLIC_BASE_URL);
    return {
      sessionIdleMs: values.MCP_SESSION_IDLE_SECONDS * 1000,
      maxSessions: values.MCP_MAX_SESSIONS,
      maxSessionsPerCaller: values.MCP_MAX_SESSIONS_PER_CALLER,
      sessionMaxAgeMs: values.MCP_SESSION_MAX_AGE_SECONDS * 1000,
      fastLane: values.MCP_FAST_LANE,
      requireCredential: env.MCP_REQUIRE_CREDENTIAL ? values.MCP_REQUIRE_CREDENTIAL : env.OAUTH_MODE === 'builtin',
      ...(allowedHostnames ? { allowedHostnames } : {}),
      agentTools: agentToolListsFrom(env),
    };
  },
});

const LOOPBACK_HOST_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Host names accepted in Host/Origin (DNS-rebinding protection) when `MCP_ALLOWED_HOSTS` is unset:
 * `undefined` (the SDK's loopback names) on a loopback bind; on a wildcard bind (0.0.0.0, ::), which
 * serves loopback too, those plus PUBLIC_BASE_URL's host name; `[]` (no check) only on a bind to
 * one specific non-loopback address.
 */
function defaultAllowedHosts(host: string, publicBaseUrl: string | undefined): string[] | undefined {
  if (isLoopback(host)) return undefined;
  if (host !== '0.0.0.0' && host !== '::') return [];
  const publicHost = publicBaseUrl ? parseUrl(publicBaseUrl)?.hostname : undefined;
  return [...new Set([...LOOPBACK_HOST_NAMES, ...(publicHost ? [publicHost] : [])])];
}
