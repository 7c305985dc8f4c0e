import { TASKS_EXTENSION } from '@app/mcp';

/**
 * A 2026-07-28 requester of the tasks extension, raw: the official SDK client (2.4) refuses a
 * `tools/call` answered with a task ("Unsupported result type 'task'") and has no `tasks/*`
 * methods, and the extension's own client (`@modelcontextprotocol/ext-tasks` 0.2) cannot read the
 * SDK client's `tools/list` (null-prototype schema objects fail its JSON check). So these requests
 * are framed here as the conformance suite frames them: the per-request envelope declaring the
 * extension, `Mcp-Method`, and `Mcp-Name` (the tool's name, or the task's id).
 */
export const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

export class JsonRpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

let ids = 0;

export async function tasksRequest(
  url: URL,
  party: Record<string, string>,
  method: string,
  params: Record<string, unknown>,
  capabilities: object = WITH_TASKS,
): Promise<Record<string, unknown>> {
  const name = method === 'tools/call' ? params['name'] : method.startsWith('tasks/') ? params['taskId'] : undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': encodeURIComponent(name) === name ? name : `=?base64?${Buffer.from(name).toString('base64')}?=` } : {}),
      ...party,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++ids,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-e2e', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  if (body.error) throw new JsonRpcFailure(body.error.code, body.error.message, response.status);
  return body.result!;
}

/** The requests of one party. */
export function tasksClient(url: URL, party: Record<string, string> = {}, capabilities: object = WITH_TASKS) {
  return {
    call: (name: string, args: Record<string, unknown> = {}) => tasksRequest(url, party, 'tools/call', { name, arguments: args }, capabilities),
    get: (taskId: string) => tasksRequest(url, party, 'tasks/get', { taskId }, capabilities),
    cancel: (taskId: string) => tasksRequest(url, party, 'tasks/cancel', { taskId }, capabilities),
    update: (taskId: string, inputResponses: Record<string, unknown>) => tasksRequest(url, party, 'tasks/update', { taskId, inputResponses }, capabilities),
  };
}

export type TasksClient = ReturnType<typeof tasksClient>;
