import type { ServerContext } from '@modelcontextprotocol/server';
import { toAuthInfo, type UserInfo } from '../caller.js';

let calls = 0;

const noClient = async (): Promise<never> => {
  throw new Error('There is no MCP client to ask: this tool was called in-process');
};

/**
 * The request context of a tool called in-process (`McpRegistry.call`): the caller and agent as
 * `/mcp` would carry them, cancellation through `signal`; progress and client logs go nowhere,
 * since no client listens, and asking a client for input fails with a message that says why.
 */
export function inProcessContext(caller: UserInfo | undefined, agent: string | undefined, signal: AbortSignal): ServerContext {
  const authInfo = toAuthInfo(caller, { agent });
  return {
    mcpReq: {
      id: `in-process-${++calls}`,
      method: 'tools/call',
      signal,
      notify: async () => {},
      send: noClient,
      log: async () => {},
      elicitInput: noClient,
      requestSampling: noClient,
    },
    ...(authInfo ? { http: { authInfo } } : {}),
  } as unknown as ServerContext;
}
