import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { MODERN_REVISION } from './sdk-parity/index.js';

/**
 * How one `/mcp` exchange failed, for `mcp_server_operation_duration_seconds`'s `error_type`:
 * noted by whichever code answers it (a JSON-RPC error code we write, `tool_error` for a result
 * marked `isError`), read when the answer has gone. It hangs on the Node request, and travels to
 * the registry in the exchange's `AuthInfo`.
 */
export class OperationOutcome {
  errorType = '';

  note(errorType: string): void {
    this.errorType ||= errorType;
  }
}

const OUTCOME = Symbol('mcp operation outcome');
type WithOutcome = IncomingMessage & { [OUTCOME]?: OperationOutcome };

export function attachOutcome(request: IncomingMessage): OperationOutcome {
  return ((request as WithOutcome)[OUTCOME] = new OperationOutcome());
}

/** The exchange's outcome, when metrics are recorded (otherwise nothing was attached). */
export function outcomeOf(request: IncomingMessage | undefined): OperationOutcome | undefined {
  return (request as WithOutcome | undefined)?.[OUTCOME];
}

export function outcomeFromAuthInfo(authInfo: AuthInfo | undefined): OperationOutcome | undefined {
  return authInfo?.extra?.outcome as OperationOutcome | undefined;
}

/** Methods of the protocol's revisions we serve; any other name is `_OTHER`, so that a client cannot mint series. */
const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'tasks/list',
  'tasks/result',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
]);

const KNOWN_VERSIONS = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', MODERN_REVISION]);

export interface OperationLabels {
  method: string;
  tool: string;
  errorType: string;
  protocolVersion: string;
}

/**
 * The labels of one POST's operation: its method (`_OTHER` for a batch or an unknown one), the
 * tool a `tools/call` names when `isTool` knows it (`_OTHER` otherwise), how it failed (what the
 * answering code noted, else the HTTP status of a refusal) and the revision the client stated.
 */
export function operationLabels(
  body: unknown,
  protocolVersionHeader: string | undefined,
  statusCode: number,
  outcome: OperationOutcome | undefined,
  isTool: (name: string) => boolean,
): OperationLabels {
  const message = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { method?: unknown; params?: { name?: unknown } }) : undefined;
  const method = typeof message?.method === 'string' && MCP_METHODS.has(message.method) ? message.method : '_OTHER';
  const name = method === 'tools/call' ? message?.params?.name : undefined;
  return {
    method,
    tool: method !== 'tools/call' ? '' : typeof name === 'string' && isTool(name) ? name : '_OTHER',
    errorType: outcome?.errorType || (statusCode >= 400 ? String(statusCode) : ''),
    protocolVersion: protocolVersionHeader !== undefined && KNOWN_VERSIONS.has(protocolVersionHeader) ? protocolVersionHeader : '',
  };
}
