import { describe, expect, it } from '@jest/globals';
import { isDatabaseUnavailable } from './database-unavailable.js';

const socketError = (code: string) =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect', address: '127.0.0.1', port: 5432 });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', socketError('ECONNREFUSED')],
    ['a connection cut', new Error('Connection terminated unexpectedly')],
    ['the pool timing out', new Error('timeout exceeded when trying to connect')],
    ['the server shutting down (57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['the server starting (57P03)', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['a connection failure (08006)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['too many connections (53300)', Object.assign(new Error('sorry, too many clients already'), { code: '53300' })],
    ['TypeORM wrapping the driver', Object.assign(new Error('query failed'), { driverError: socketError('ECONNRESET') })],
    ['every address refused', new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')])],
  ])('is true for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a query the database refused (23505)', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a syntax error (42601)', Object.assign(new Error('syntax error'), { code: '42601' })],
    ['an HTTP client that could not connect (fetch)', Object.assign(new TypeError('fetch failed'), { cause: socketError('ECONNREFUSED') })],
    ['an S3 call', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', syscall: 'read', $metadata: {} })],
    ['a bug', new Error('undefined is not a function')],
    ['not an error', 'Connection terminated'],
  ])('is false for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
