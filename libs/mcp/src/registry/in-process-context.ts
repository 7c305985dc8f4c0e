import type { ServerContext } from '@modelcontextprotocol/server';
import { InvalidInputError } from '@app/common';
import { toAuthInfo, type UserInfo } from '../caller.js';

let calls = 0;

// A domain error: the caller's to read (the tool's error result says it), not a failure of the server's.
const noClient = async (): Promise<never> => {
  throw new InvalidInputError('There is no MCP client to ask: this tool was called in-process (call it over MCP to answer its questions)');
};

/**
 * The request context of a tool called in-process (`McpRegistry.call`): the caller and agent as
 * `/mcp` would carry them, and the id of the HTTP request the call serves (a REST route's), if
 * any; cancellation through `signal`; progress and client logs go nowhere, since no client
 * listens, and asking a client for input fails with a message that says why.
 */
export function inProcessContext(caller: UserInfo | undefined, agent: string | undefined, signal: AbortSignal, requestId?: string): ServerContext {
  const authInfo = toAuthInfo(caller, { agent, ...(requestId ? { requestId } : {}) });
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
