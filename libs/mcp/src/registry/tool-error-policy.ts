import { HttpException, type Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { DomainError } from '@app/common';
import { errorResult } from './tool-result.js';

/**
 * What the model sees of an error a tool threw. A domain error or an `HttpException` was meant
 * for the caller: its message goes out. Anything else (a database error naming a constraint, a
 * bug) stays inside: the model gets "Internal error" and the request id, the log gets the stack.
 */
export function toolErrorResult(error: unknown, tool: string, requestId: string, logger: Logger): CallToolResult {
  if (error instanceof DomainError || error instanceof HttpException) {
    logger.warn(`Tool ${tool} refused (request id ${requestId}): ${error.message}`);
    return errorResult(error.message);
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  logger.error(`Tool ${tool} failed (request id ${requestId}): ${stack}`);
  return errorResult(`Internal error (request id ${requestId})`);
}
