import type { AuthInfo, CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';

type ToolCallOutcome = CallToolResult | InputRequiredResult;

/**
 * A tool call's result the HTTP fast lane already made but leaves to the SDK to validate and
 * encode. It travels in the `extra` of that one exchange's own `AuthInfo` (a fresh object per
 * hand-over), so the SDK's `tools/call` handler answers with it instead of running the tool a
 * second time; taken once, a second read finds nothing.
 */
export class HandedOverResult {
  constructor(private result: ToolCallOutcome | undefined) {}

  take(): ToolCallOutcome | undefined {
    const result = this.result;
    this.result = undefined;
    return result;
  }
}

/** The `AuthInfo` of one hand-over: the caller's own (caller, agent, request id) plus the result. */
export function withHandedOverResult(authInfo: AuthInfo | undefined, clientId: string, result: ToolCallOutcome): AuthInfo {
  return {
    token: '',
    clientId,
    scopes: [],
    ...authInfo,
    extra: { ...authInfo?.extra, handedOver: new HandedOverResult(result) },
  };
}

/** The result handed over with this exchange, once. */
export function takeHandedOverResult(authInfo: AuthInfo | undefined): ToolCallOutcome | undefined {
  const handedOver = authInfo?.extra?.handedOver;
  return handedOver instanceof HandedOverResult ? handedOver.take() : undefined;
}
