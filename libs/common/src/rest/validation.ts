import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { ValidateIf } from 'class-validator';
import { InvalidInputError } from '../errors.js';
import { LONE_SURROGATE_PROBLEM, pathsWithLoneSurrogates } from '../unstorable-text.js';

/**
 * The property may be left out; `null` is not leaving it out, and is checked like any value (so
 * a type check refuses it) unless the property takes null itself (`@ValidateIf` on `!== null`).
 * class-validator's `@IsOptional()` skips every check for null too, which let `{"text": null}`
 * through to code that expected a string (500s on PATCH /api/memories and /members/me).
 */
export function Omittable(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

/** Each bad field (dotted path for nested ones) with its first problem. */
export function fieldProblems(errors: ValidationError[], prefix = ''): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    // class-validator runs (and reports) a property's checks from the decorator nearest to it
    // upwards; the topmost, usually the type check, is the problem to name first: a missing label
    // "must be a string", not "must not contain a NUL character".
    const first = Object.values(error.constraints ?? {}).at(-1);
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

/** Also refuses text that is not valid Unicode in a body, query or path parameter, before any DTO check: no decorator checks it. */
class AppValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'custom') {
      const broken = pathsWithLoneSurrogates(value, metadata.data ?? '');
      if (broken.length) throw invalidRequest(Object.fromEntries(broken.map((path) => [path || 'body', LONE_SURROGATE_PROBLEM])));
    }
    return super.transform(value, metadata);
  }
}

/**
 * The app's one validation pipe: DTO classes checked with class-validator; unknown fields refused,
 * values converted to the declared types. A bad body or query is a 400 naming each field.
 */
export function createValidationPipe(): ValidationPipe {
  return new AppValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    exceptionFactory: (errors) => invalidRequest(fieldProblems(errors)),
  });
}
