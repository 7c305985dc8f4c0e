import { HttpException, type Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  DATABASE_UNAVAILABLE_MESSAGE,
  describeError,
  DomainError,
  isDatabaseUnavailable,
  isUnstorableText,
  NUL_PROBLEM,
  pathsWithNul,
  stackFrames,
} from '@app/common';
import { errorResult } from './tool-result.js';

/**
 * What the model sees of an error a tool threw. A domain error or an `HttpException` was meant
 * for the caller: its message goes out. So does the database's refusal of text holding U+0000,
 * naming the arguments that hold it. An unreachable database is said to be one, to try again
 * shortly. Anything else (a database error naming a constraint, a bug)
 * stays inside: the model gets "Internal error" and the request id, the log gets the error as
 * `describeError` puts it (no SQL, parameters or driver message) and its stack frames.
 * `internal`: the failure is the server's (the last two cases), not one meant for the model.
 */
export function toolFailure(error: unknown, tool: string, requestId: string, logger: Logger, args: Record<string, unknown>): ToolFailure {
  const message = error instanceof DomainError || error instanceof HttpException ? error.message : isUnstorableText(error) ? nulRefusal(tool, args) : undefined;
  if (message !== undefined) {
    logger.warn(`Tool ${tool} refused (request id ${requestId}): ${message}`);
    return { result: errorResult(message), internal: false };
  }
  if (isDatabaseUnavailable(error)) {
    // Not the tool's fault nor the model's: said so, for the model (or its user) to try again.
    logger.warn(`Tool ${tool} failed (request id ${requestId}): the database is unavailable (${describeError(error)})`);
    return { result: errorResult(`${DATABASE_UNAVAILABLE_MESSAGE} (request id ${requestId})`), internal: true };
  }
  logger.error(`Tool ${tool} failed (request id ${requestId}): ${describeError(error)}`, stackFrames(error));
  return { result: errorResult(`Internal error (request id ${requestId})`), internal: true };
}

export interface ToolFailure {
  result: CallToolResult;
  internal: boolean;
}

/**
 * What a tool that was stopped answers: the error it threw on the way out is the stop's echo, not a
 * fault (the client cancelled it, the task's TTL ran out, the server is shutting down), so it is
 * logged at info, without a stack, and the metrics count it `cancelled`.
 */
export function cancelledCall(tool: string, requestId: string, logger: Logger, reason: unknown): CallToolResult {
  const why = reason instanceof Error ? reason.message : 'the call was cancelled';
  logger.log(`Tool ${tool} cancelled (request id ${requestId}): ${why}`);
  return errorResult(`Cancelled (request id ${requestId}): ${why}`);
}

/**
 * A tool call that failed for a reason of the server's, thrown instead of answered where the
 * caller tells the two kinds apart: a task ends `failed` on it (the tasks extension reserves that
 * status for such failures), where a tool's own error ends it `completed` with `isError`.
 */
export class InternalToolError extends Error {
  constructor(readonly result: CallToolResult) {
    super((result.content[0] as { text: string }).text);
  }
}

function nulRefusal(tool: string, args: Record<string, unknown>): string {
  const paths = pathsWithNul(args);
  const named = paths.length ? paths.map((path) => `argument "${path}" ${NUL_PROBLEM}`).join('; ') : `text ${NUL_PROBLEM}`;
  return `Invalid arguments for tool "${tool}": ${named}`;
}
