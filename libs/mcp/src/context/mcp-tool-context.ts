import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  LoggingLevel,
  ServerContext,
} from '@modelcontextprotocol/server';
import { MAY_BECOME_TASK } from '../tasks/task-run.js';

/**
 * What a tool can do besides returning a result: report progress, log to the client, ask the
 * client for input, and notice cancellation. Handed to a parameter marked `@ToolContext()`.
 */
export class McpToolContext {
  constructor(private readonly sdk: ServerContext) {}

  /** Aborted when the client cancels the call or disconnects. */
  get signal(): AbortSignal {
    return this.sdk.mcpReq.signal;
  }

  get sessionId(): string | undefined {
    return this.sdk.sessionId;
  }

  /**
   * True when this call may outlive its request as a task (a task tool, called by a client that
   * supports tasks): the tool may then wait for slow work (an extraction, an upstream) instead of
   * answering "not ready"; the client gets a task to poll if the wait is long.
   */
  get mayBecomeTask(): boolean {
    return MAY_BECOME_TASK in this.sdk;
  }

  /** Answers to input requests of an earlier round (multi-round-trip calls), keyed by request name. */
  get inputResponses(): Record<string, unknown> | undefined {
    return this.sdk.mcpReq.inputResponses;
  }

  /** The SDK's own request context, for protocol features this class does not wrap. */
  get raw(): ServerContext {
    return this.sdk;
  }

  /** Sends `notifications/progress` when the client asked for progress; otherwise does nothing, as the spec requires. */
  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const progressToken = this.sdk.mcpReq._meta?.progressToken;
    if (progressToken === undefined) return;
    await this.sdk.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
  }

  /** Sends a log message to the client, subject to the level the client chose. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.sdk.mcpReq.log(level, data, logger);
  }

  /**
   * Asks the client's user for input: in a 2025 session, or in a call that may become a task (it
   * becomes one, `input_required`, until the client answers). Otherwise, on the stateless 2026
   * revision, return `inputRequired(...)` instead.
   */
  elicit(params: ElicitRequestFormParams | ElicitRequestURLParams): Promise<ElicitResult> {
    return this.sdk.mcpReq.elicitInput(params, this.asPartOfThisCall());
  }

  /** Asks the client's model for a completion: where `elicit` can ask (otherwise, on 2026, return `inputRequired(...)`). */
  sample(params: CreateMessageRequest['params']): Promise<CreateMessageResult> {
    return this.sdk.mcpReq.requestSampling(params, this.asPartOfThisCall()) as Promise<CreateMessageResult>;
  }

  /**
   * Ties a server-to-client request to this call, so it travels on the call's own stream: without
   * a session that stream is the only place where the calling client, and nobody else, sees it.
   */
  private asPartOfThisCall() {
    return { signal: this.signal, relatedRequestId: this.sdk.mcpReq.id };
  }
}
