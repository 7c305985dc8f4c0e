import type { AuthInfo, CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';

/**
 * Results of tool calls the HTTP fast lane already made but leaves to the SDK to validate and
 * encode, keyed by the `AuthInfo` object of that one exchange (fresh per hand-over), so the SDK's
 * `tools/call` handler answers with it instead of running the tool a second time.
 */
const handedOver = new WeakMap<AuthInfo, CallToolResult | InputRequiredResult>();

export function handOverResult(authInfo: AuthInfo, result: CallToolResult | InputRequiredResult): void {
  handedOver.set(authInfo, result);
}

/** The handed-over result for this exchange, once: a second read finds nothing. */
export function handedOverResult(authInfo: AuthInfo | undefined): CallToolResult | InputRequiredResult | undefined {
  if (!authInfo) return undefined;
  const result = handedOver.get(authInfo);
  handedOver.delete(authInfo);
  return result;
}
