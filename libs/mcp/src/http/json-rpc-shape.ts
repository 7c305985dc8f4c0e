/** What a single JSON-RPC 2.0 message is, told by its shape; `undefined` for anything malformed. */
export type JsonRpcKind = 'request' | 'notification' | 'response';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown) => typeof value === 'string' || Number.isInteger(value);

/**
 * The hot path's check, in place of the SDK's schema parse: only well-formed messages take the
 * shared server, and anything this refuses goes to the SDK, which answers with the spec's error.
 */
export function jsonRpcKind(body: unknown): JsonRpcKind | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0') return undefined;
  if (typeof body.method === 'string') {
    if (body.params !== undefined && !isObject(body.params)) return undefined;
    if (!('id' in body)) return 'notification';
    return isId(body.id) ? 'request' : undefined;
  }
  return isId(body.id) && ('result' in body || isObject(body.error)) ? 'response' : undefined;
}
