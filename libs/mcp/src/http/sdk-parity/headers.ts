import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * The modern revision the SDK's `createMcpHandler` serves. The SDK keeps its list of modern
 * revisions to itself (`SUPPORTED_PROTOCOL_VERSIONS` is the 2025 `initialize` list), so a request
 * naming any other modern revision is left to it.
 */
export const MODERN_REVISION = '2026-07-28';

/** The SDK's rule for a 2025 POST: the client accepts both a JSON body and an SSE stream. */
export const acceptsJsonAndEventStream = (accept: string | undefined): boolean =>
  !!accept?.includes('application/json') && accept.includes('text/event-stream');

/** The SDK's 406 for a 2025 POST that fails `acceptsJsonAndEventStream`, in its wording. */
export const NOT_ACCEPTABLE = 'Not Acceptable: Client must accept both application/json and text/event-stream';

/** A 2025 `MCP-Protocol-Version` header the SDK's transports accept: absent, or one of its versions. */
export const isServedLegacyVersion = (version: unknown): boolean =>
  version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version));

/** Media ranges under which a JSON body is acceptable. */
const JSON_RANGES = new Set(['*/*', 'application/*', 'application/json']);

/** True when one of the `Accept` header's ranges takes JSON with a weight above 0. */
export function takesJson(accept: string): boolean {
  return accept.split(',').some((range) => {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    return JSON_RANGES.has(type!) && !parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter));
  });
}

/** The headers of the SDK's JSON answers. */
export const JSON_HEADERS = { 'content-type': 'application/json' };

/** The headers of the SDK's streamable HTTP transport on an SSE answer. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** The fields the SDK's 2026 codec adds to a complete, uncached result, in its order. */
export const MODERN_RESULT_DEFAULTS = { resultType: 'complete', ttlMs: 0, cacheScope: 'private' } as const;
