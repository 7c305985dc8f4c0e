/**
 * Everything in the HTTP layer that mirrors what the official SDK would do, so that answering
 * without it (the fast lane) or before it (routing, the `Accept` rewrite) cannot be told apart
 * from the SDK's own answer: which headers it accepts, the key order and defaults of its results,
 * its SSE headers, its classifier's verdict on a 2026 envelope. The contract of this folder is the
 * differential corpus (apps/server/test/support/fast-lane-corpus.ts, run by
 * fast-lane.e2e-spec.ts): every entry answered the same with and without the fast lane. An SDK
 * upgrade (the versions are pinned) is a change to this folder that the corpus must pass.
 */
export {
  acceptsJsonAndEventStream,
  isServedLegacyVersion,
  JSON_HEADERS,
  MODERN_RESULT_DEFAULTS,
  MODERN_REVISION,
  NOT_ACCEPTABLE,
  SSE_HEADERS,
  takesJson,
} from './headers.js';
export { paramHeaderMismatch, paramHeadersOf, type ParamHeader } from './mcp-param-headers.js';
export { servableModern } from './modern-envelope.js';
export { isPlainObject, isUnchangedBySdk, nonObjectOutputSchema } from './result-shape.js';
