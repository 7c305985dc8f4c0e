// TEMPORARY until the foundation's @app/common lands: the contract's Page and cursor helpers.
import { InvalidInputError } from './errors.js';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const encodeCursor = (values: unknown[]): string => Buffer.from(JSON.stringify(values)).toString('base64url');

export function decodeCursor(cursor: string): unknown[] {
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(values)) return values;
  } catch {
    // falls through to the error below
  }
  throw new InvalidInputError('cursor is not one this server gave out', { cursor: 'invalid' });
}
