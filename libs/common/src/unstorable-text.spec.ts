import { describe, expect, it } from '@jest/globals';
import { isUnstorableText, pathsWithLoneSurrogates, pathsWithNul } from './unstorable-text.js';

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

describe('pathsWithLoneSurrogates', () => {
  it('names strings and keys holding half of a surrogate pair, high or low, and passes whole pairs', () => {
    const input = { cut: 'tea \ud83c', low: '\udf75 tea', whole: 'tea \ud83c\udf75', list: ['ok', ['\ud800']], 'k\udc00': 'v', n: 1 };
    expect(pathsWithLoneSurrogates(input)).toEqual(['cut', 'low', 'list.1.0', 'k\udc00']);
    expect(pathsWithLoneSurrogates('\ud800', 'id')).toEqual(['id']);
    expect([pathsWithLoneSurrogates('\ud83c\udf75'), pathsWithLoneSurrogates(null), pathsWithLoneSurrogates(undefined)]).toEqual([[], [], []]);
  });
});
