/**
 * Errors a service throws when a request cannot be served as asked. REST answers them with their
 * status (one global filter); a tool result shows their message. Anything that is not a
 * `DomainError` (or a Nest `HttpException`) counts as unexpected and is never shown to a caller.
 */
export abstract class DomainError extends Error {
  /** The HTTP status REST answers with. */
  abstract readonly status: number;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Also what another user's id gets: an id the caller may not see is answered like a missing one. */
export class NotFoundError extends DomainError {
  readonly status = 404;
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
}

export class ConflictError extends DomainError {
  readonly status = 409;
}

/** Something that existed and will never work again (an invitation whose sender's account was erased). */
export class GoneError extends DomainError {
  readonly status = 410;
}

/** Bad input; `fields` maps each offending field (dotted path) to what is wrong with it. */
export class InvalidInputError extends DomainError {
  readonly status = 400;

  constructor(
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
}

/** A body of unknown size where its size must be known up front (a chunked upload where Content-Length is required). */
export class LengthRequiredError extends DomainError {
  readonly status = 411;
}

/** A dependency (a database, an identity provider, a model) cannot be reached now; retrying later may work. */
export class UnavailableError extends DomainError {
  readonly status = 503;
}
