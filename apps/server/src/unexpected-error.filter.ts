import { Catch, HttpException, InternalServerErrorException, Logger, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { QueryFailedError } from 'typeorm';
import { DomainError, DomainErrorFilter } from '@app/common';

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
    if (exception instanceof HttpException || host.getType() !== 'http' || isClientError(exception)) return super.catch(exception, host);
    this.logger.error(describe(exception), stackFrames(exception));
    super.catch(new InternalServerErrorException(), host);
  }
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
