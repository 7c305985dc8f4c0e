import type { ServerResponse } from 'node:http';
import { JSON_RPC_SERVER_ERROR } from '@app/common';
import { outcomeOf } from './operation-outcome.js';

export type JsonRpcId = string | number | null;

/** JSON-RPC's implementation-defined server error, for refusals of the HTTP exchange itself (429, 406, guards). */
export const SERVER_ERROR = JSON_RPC_SERVER_ERROR;

/** The id of a single parsed JSON-RPC request, so an error answer names the request it refuses; `null` when there is none to read. */
export function jsonRpcIdOf(body: unknown): JsonRpcId {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Answers an HTTP exchange that never reached the SDK with a JSON-RPC error body. */
export function writeJsonRpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: JsonRpcId = null,
): void {
  outcomeOf(response.req)?.note(String(code));
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id });
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
