import { STATUS_CODES } from 'node:http';
import { Catch, HttpException, InternalServerErrorException, Logger, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  describeError,
  DomainError,
  DomainErrorFilter,
  InvalidInputError,
  invalidRequest,
  isUnstorableText,
  NUL_PROBLEM,
  pathsWithNul,
  stackFrames,
} from '@app/common';
import { MCP_ROUTE_PATHS, SERVER_ERROR } from '@app/mcp';

/**
 * Errors nobody expected answer 500 as Nest's own filter would, but their log line is
 * `describeError`'s (class and message; of a database error only its SQLSTATE code) and the stack
 * frames, never the error object's own fields, which Nest's filter would hand to the logger.
 */
@Catch()
export class UnexpectedErrorFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('ExceptionsHandler');
  private readonly domainErrors = new DomainErrorFilter();

  override catch(exception: unknown, host: ArgumentsHost): void {
    // Whichever global filter Nest tries first, a domain error keeps its own status and message.
    if (exception instanceof DomainError && host.getType() === 'http') return this.domainErrors.catch(exception, host);
    if (isUnstorableText(exception) && host.getType() === 'http') return this.domainErrors.catch(nulRefusal(host.switchToHttp().getRequest()), host);
    const refusal = fastifyRefusal(exception);
    if (refusal && host.getType() === 'http') return answerClientError(refusal, host);
    if (exception instanceof HttpException || host.getType() !== 'http') return super.catch(exception, host);
    this.logger.error(describeError(exception), stackFrames(exception));
    super.catch(new InternalServerErrorException(), host);
  }
}

/** The 400 for text the database refused: it names the path parameters, query fields and body fields holding U+0000. */
function nulRefusal(request: FastifyRequest): InvalidInputError {
  const paths = [request.params, request.query, request.body].flatMap((part) => pathsWithNul(part));
  if (paths.length === 0) return new InvalidInputError(`Invalid request: text ${NUL_PROBLEM}`);
  return invalidRequest(Object.fromEntries(paths.map((path) => [path, NUL_PROBLEM])));
}

/** Fastify's own refusals (a body too large, a malformed Content-Type) carry a 4xx status and a code. */
type ClientError = Error & { statusCode: number; code?: string };

function isClientError(exception: unknown): exception is ClientError {
  const status = (exception as { statusCode?: unknown })?.statusCode;
  return exception instanceof Error && typeof status === 'number' && status >= 400 && status < 500;
}

/** The Fastify refusal behind an exception: Nest's adapter hands it over wrapped in an `HttpException` (its `cause`). */
function fastifyRefusal(exception: unknown): ClientError | undefined {
  if (isClientError(exception)) return exception;
  const cause = exception instanceof HttpException ? exception.cause : undefined;
  return isClientError(cause) ? cause : undefined;
}

/**
 * A Fastify refusal is the caller's mistake, answered in the shape of the route's other errors
 * (JSON-RPC on `/mcp`, the REST error body elsewhere); a body over the limit names the limit and
 * the key that raises it.
 */
function answerClientError(exception: ClientError, host: ArgumentsHost): void {
  const http = host.switchToHttp();
  const request = http.getRequest<FastifyRequest>();
  const reply = http.getResponse<FastifyReply>();
  const status = exception.statusCode;
  const message = refusalMessage(exception, request);
  if (MCP_ROUTE_PATHS.includes(request.routeOptions?.url ?? '')) {
    void reply.status(status).send({ jsonrpc: '2.0', error: { code: SERVER_ERROR, message }, id: null });
    return;
  }
  void reply.status(status).send({ statusCode: status, error: STATUS_CODES[status] ?? 'Error', message });
}

function refusalMessage(exception: ClientError, request: FastifyRequest): string {
  if (exception.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return `Request body is larger than ${request.routeOptions?.bodyLimit ?? 'the limit'} bytes (BODY_LIMIT_BYTES)`;
  if (exception.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return `Content-Type "${String(request.headers['content-type']).slice(0, 100)}" is not one media type: send application/json`;
  }
  return exception.message;
}
