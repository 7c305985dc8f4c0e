import { describe, expect, it } from '@jest/globals';
import { isUnstorableText, pathsWithNul } from './unstorable-text.js';

describe('isUnstorableText', () => {
  it.each([
    ['a TypeORM error for NUL in text', { driverError: { code: '22021' } }, true],
    ['a TypeORM error for NUL in jsonb', { driverError: { code: '22P05' } }, true],
    ["a driver's own error", { code: '22021' }, true],
    ['a unique violation', { driverError: { code: '23505' } }, false],
    ['an error without a code', new Error('boom'), false],
    ['a code that is not a string', { code: 22021 }, false],
    ['undefined', undefined, false],
  ])('%s: %s', (_name, error, expected) => {
    expect(isUnstorableText(error)).toBe(expected);
  });
});

describe('pathsWithNul', () => {
  it('names nested fields and array items by dotted path, and keys holding a NUL', () => {
    const input = { text: 'a\u0000b', clean: 'ab', tags: ['ok', '\u0000'], nested: { deep: { value: 'x\u0000' } }, 'k\u0000': 'v', count: 0 };
    expect(pathsWithNul(input)).toEqual(['text', 'tags.1', 'nested.deep.value', 'k\u0000']);
  });

  it('takes a string, a scalar, null and undefined', () => {
    expect(pathsWithNul('\u0000', 'body')).toEqual(['body']);
    expect([pathsWithNul(5), pathsWithNul(null), pathsWithNul(undefined), pathsWithNul('clean')]).toEqual([[], [], [], []]);
  });
});
