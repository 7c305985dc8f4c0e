import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { InvalidInputError } from '../errors.js';

/** Each bad field (dotted path for nested ones) with its first problem. */
export function fieldProblems(errors: ValidationError[], prefix = ''): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const first = Object.values(error.constraints ?? {})[0];
    if (first) fields[path] = first;
    if (error.children?.length) Object.assign(fields, fieldProblems(error.children, path));
  }
  return fields;
}

/** The 400 naming each bad field (dotted path) with its problem, in the message and in `fields`. */
export function invalidRequest(fields: Record<string, string>): InvalidInputError {
  const problems = Object.entries(fields).map(([field, problem]) => `${field}: ${problem}`);
  return new InvalidInputError(`Invalid request: ${problems.join('; ')}`, fields);
}

/**
 * The app's one validation pipe: DTO classes checked with class-validator; unknown fields refused,
 * values converted to the declared types. A bad body or query is a 400 naming each field.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    exceptionFactory: (errors) => invalidRequest(fieldProblems(errors)),
  });
}
