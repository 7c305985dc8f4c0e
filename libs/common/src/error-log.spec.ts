import { describe, expect, it } from '@jest/globals';
import { QueryFailedError } from 'typeorm';
import { describeError, stackFrames } from './error-log.js';

describe('the log line of an unexpected error (finding 9)', () => {
  it('never carries SQL, its parameters or the driver’s message', () => {
    const driverError = Object.assign(new Error('invalid input syntax for type uuid: "alice@example.com"'), { code: '22P02' });
    const error = new QueryFailedError('SELECT * FROM users WHERE email = $1', ['alice@example.com', 'secret-hash-0123'], driverError);
    const line = `${describeError(error)}\n${stackFrames(error)}`;
    expect(line).toContain('QueryFailedError: database error 22P02');
    for (const leaked of ['alice@example.com', 'secret-hash-0123', 'SELECT', 'invalid input syntax']) expect(line).not.toContain(leaked);
  });

  it('keeps the message of other errors', () => {
    expect(describeError(new TypeError('x is not a function'))).toBe('TypeError: x is not a function');
  });
});
