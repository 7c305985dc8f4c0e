import { Catch, HttpException, InternalServerErrorException, Logger, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
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
    if (exception instanceof HttpException || host.getType() !== 'http' || isClientError(exception)) return super.catch(exception, host);
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

/** Fastify's own errors (a body too large, say) carry a 4xx status: the caller's mistake, answered as such. */
function isClientError(exception: unknown): boolean {
  const status = (exception as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}
