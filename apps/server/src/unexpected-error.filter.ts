import { Catch, HttpException, InternalServerErrorException, Logger, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { QueryFailedError } from 'typeorm';
import { DomainError, DomainErrorFilter, InvalidInputError, isUnstorableText, NUL_PROBLEM, pathsWithNul } from '@app/common';

/**
 * Errors nobody expected answer 500 as Nest's own filter would, but their log line carries the
 * error's class, message and stack frames only, never the error object's own fields: Nest's filter
 * hands the whole object to the logger, and a TypeORM `QueryFailedError` carries the failing SQL
 * with its parameters (user ids, e-mail addresses, secret hashes) and the driver's error, whose
 * message may quote a value. Of a database error only its SQLSTATE code is logged.
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
    this.logger.error(describe(exception), stackFrames(exception));
    super.catch(new InternalServerErrorException(), host);
  }
}

/** The 400 for text the database refused: it names the path parameters, query fields and body fields holding U+0000. */
function nulRefusal(request: FastifyRequest): InvalidInputError {
  const paths = [request.params, request.query, request.body].flatMap((part) => pathsWithNul(part));
  if (paths.length === 0) return new InvalidInputError(`Invalid request: text ${NUL_PROBLEM}`);
  const fields = Object.fromEntries(paths.map((path) => [path, NUL_PROBLEM]));
  return new InvalidInputError(`Invalid request: ${paths.map((path) => `${path}: ${NUL_PROBLEM}`).join('; ')}`, fields);
}

/** Fastify's own errors (a body too large, say) carry a 4xx status: the caller's mistake, answered as such. */
function isClientError(exception: unknown): boolean {
  const status = (exception as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

export function describe(exception: unknown): string {
  if (exception instanceof QueryFailedError) return `QueryFailedError: database error ${(exception.driverError as { code?: string })?.code ?? 'without code'}`;
  return exception instanceof Error ? `${exception.name}: ${exception.message}` : 'Non-error thrown';
}

/** The stack's frames without its first lines, which repeat the message. */
export function stackFrames(exception: unknown): string | undefined {
  const stack = exception instanceof Error ? exception.stack : undefined;
  return stack
    ?.split('\n')
    .filter((line) => line.startsWith('    at '))
    .join('\n');
}
