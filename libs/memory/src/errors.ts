// TEMPORARY until the foundation's @app/common lands: same names and statuses as the contract.
export abstract class DomainError extends Error {
  abstract readonly status: number;
}
export class NotFoundError extends DomainError {
  readonly status = 404;
}
export class ConflictError extends DomainError {
  readonly status = 409;
}
export class InvalidInputError extends DomainError {
  readonly status = 400;
  constructor(message: string, readonly fields?: Record<string, string>) {
    super(message);
  }
}
export class UnavailableError extends DomainError {
  readonly status = 503;
}
