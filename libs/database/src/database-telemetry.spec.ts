import { describe, expect, it } from '@jest/globals';
import { operationOf } from './database-telemetry.js';

describe('operationOf', () => {
  it.each([
    ['SELECT 1', 'SELECT'],
    ['  select * from t', 'SELECT'],
    ['\n\tINSERT INTO t VALUES ($1)', 'INSERT'],
    ['START TRANSACTION', 'START'],
    ['WITH x AS (SELECT 1) SELECT * FROM x', '_OTHER'],
    ['DO $$ BEGIN END $$', '_OTHER'],
    ['', '_OTHER'],
    ['-- comment\nSELECT 1', '_OTHER'],
  ])('%j is %s', (sql, operation) => {
    expect(operationOf(sql)).toBe(operation);
  });
});
