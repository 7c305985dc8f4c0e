/**
 * When the database cannot be reached: how long a client should wait before trying again (the
 * pool reconnects on the next query, so the server recovers by itself), and what it is told.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable for the moment: try again shortly';

/** SQLSTATE class 08 (connection exception), 57P01-57P03 (the server shutting down or starting), 53300 (too many connections). */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;
/** What node-postgres and its pool say of a connection that is gone or never came. */
const UNAVAILABLE_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused/i;
/** A socket's failure: counted only on an error of the socket itself (`syscall`), not of an HTTP client (S3, embeddings) that wraps one. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

type ErrorShape = { code?: unknown; syscall?: unknown; message?: unknown; driverError?: unknown; errors?: unknown; $metadata?: unknown };

/**
 * True when `error` says the database could not be reached (refused, cut, timed out, shutting
 * down), rather than that a query was wrong: the request is then answered 503 with `Retry-After`,
 * not 500. TypeORM passes the driver's error on as `driverError`; a failed connect to several
 * addresses is an `AggregateError`.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const shape = error as ErrorShape;
  if (shape.$metadata !== undefined) return false;
  if (typeof shape.code === 'string' && UNAVAILABLE_SQLSTATE.test(shape.code)) return true;
  if (typeof shape.code === 'string' && SOCKET_CODES.has(shape.code) && typeof shape.syscall === 'string') return true;
  if (typeof shape.message === 'string' && UNAVAILABLE_MESSAGE.test(shape.message) && !(error instanceof TypeError)) return true;
  if (shape.driverError !== undefined && isDatabaseUnavailable(shape.driverError)) return true;
  return Array.isArray(shape.errors) && shape.errors.length > 0 && shape.errors.every(isDatabaseUnavailable);
}
