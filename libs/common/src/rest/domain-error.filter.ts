import { Catch, HttpStatus, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError, InvalidInputError } from '../errors.js';

/** The JSON body of every error answer: Nest's own shape, plus `fields` for bad input. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  fields?: Record<string, string>;
}

/**
 * REST answers for domain errors: their status and message. Only for HTTP: elsewhere (tool calls)
 * the error goes on to the caller's own mapping.
 */
@Catch(DomainError)
export class DomainErrorFilter implements ExceptionFilter<DomainError> {
  catch(error: DomainError, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
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
}
