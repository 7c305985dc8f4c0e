import type { ServerResponse } from 'node:http';

/** Answers an HTTP exchange that never reached the SDK with a JSON-RPC error body. */
export function writeJsonRpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
