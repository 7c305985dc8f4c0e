import { STATUS_CODES } from 'node:http';
import { Catch, HttpException, HttpStatus, InternalServerErrorException, Logger, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../database-unavailable.js';
import { describeError, stackFrames } from '../error-log.js';
import { DomainError, InvalidInputError } from '../errors.js';
import { isUnstorableText, NUL_PROBLEM, pathsWithNul } from '../unstorable-text.js';
import { invalidRequest } from './validation.js';

/** The JSON body of every error answer: Nest's own shape, plus `fields` for bad input. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  fields?: Record<string, string>;
}

/** JSON-RPC's implementation-defined server error, for refusals of the HTTP exchange itself (429, 406, guards, a body too large). */
export const JSON_RPC_SERVER_ERROR = -32000;

/**
 * Fastify route config of a route whose clients read JSON-RPC error bodies (`/mcp`): the filter
 * answers the refusals that reach it there in that shape.
 */
export const JSON_RPC_ROUTE_CONFIG = { errorBody: 'json-rpc' } as const;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the route's clients read an error: as a JSON-RPC error, or (unset) as the REST error body. */
    errorBody?: 'json-rpc';
  }
}

/**
 * The application's one exception filter, for HTTP. A domain error answers its status and message
 * (with `fields` for bad input); text the database refused for U+0000 a 400 naming where it was;
 * Fastify's own refusals (a body too large, a malformed Content-Type) their 4xx in the route's
 * error shape; an `HttpException` as Nest answers it. Anything else is a 500 whose log line is
 * `describeError`'s (class and message; of a database error only its SQLSTATE code) and the stack
 * frames, never the error object's own fields, which Nest's filter would hand to the logger; one
 * that says the database could not be reached is a 503 with `Retry-After` instead.
 */
@Catch()
export class ErrorFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('ExceptionsHandler');

  override catch(exception: unknown, host: ArgumentsHost): void {
    // Tool methods with enhancers run under a context of their own: their errors go on to the tool call's own mapping.
    if (host.getType() !== 'http') throw exception;
    if (exception instanceof DomainError) return answerDomainError(exception, host);
    if (isUnstorableText(exception)) return answerDomainError(nulRefusal(host.switchToHttp().getRequest()), host);
    const refusal = fastifyRefusal(exception);
    if (refusal) return answerClientError(refusal, host);
    if (exception instanceof HttpException) return super.catch(exception, host);
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn(`Answered 503: the database is unavailable (${describeError(exception)})`);
      return answerUnavailable(host);
    }
    this.logger.error(describeError(exception), stackFrames(exception));
    super.catch(new InternalServerErrorException(), host);
  }
}

function answerDomainError(error: DomainError, host: ArgumentsHost): void {
  const body: ErrorBody = {
    statusCode: error.status,
    error: (HttpStatus[error.status] ?? 'Error')
      .toLowerCase()
      .split('_')
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join(' '),
    message: error.message,
    ...(error instanceof InvalidInputError && error.fields ? { fields: error.fields } : {}),
  };
  void host.switchToHttp().getResponse<FastifyReply>().status(error.status).send(body);
}

/** A 503 with `Retry-After`, in the route's error shape, for a request the database could not serve. */
function answerUnavailable(host: ArgumentsHost): void {
  const http = host.switchToHttp();
  const request = http.getRequest<FastifyRequest>();
  const reply = http.getResponse<FastifyReply>().status(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
  if (request.routeOptions?.config?.errorBody === JSON_RPC_ROUTE_CONFIG.errorBody) {
    void reply.send({ jsonrpc: '2.0', error: { code: JSON_RPC_SERVER_ERROR, message: DATABASE_UNAVAILABLE_MESSAGE }, id: null });
    return;
  }
  void reply.send({ statusCode: 503, error: 'Service Unavailable', message: DATABASE_UNAVAILABLE_MESSAGE });
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
 * (JSON-RPC where the route says so, the REST error body elsewhere); a body over the limit names
 * the limit and the key that raises it.
 */
function answerClientError(exception: ClientError, host: ArgumentsHost): void {
  const http = host.switchToHttp();
  const request = http.getRequest<FastifyRequest>();
  const reply = http.getResponse<FastifyReply>();
  const status = exception.statusCode;
  const message = refusalMessage(exception, request);
  if (request.routeOptions?.config?.errorBody === JSON_RPC_ROUTE_CONFIG.errorBody) {
    void reply.status(status).send({ jsonrpc: '2.0', error: { code: JSON_RPC_SERVER_ERROR, message }, id: null });
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
