import { describe, expect, it } from '@jest/globals';
import { nestedDeeperThan } from './json-body.js';

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('nestedDeeperThan', () => {
  it.each([
    ['arrays at the limit', nestedArrays(4), false],
    ['arrays one past it', nestedArrays(5), true],
    ['objects and arrays one past it', '{"a":[{"b":[{"c":1}]}]}', true],
    ['a request with fewer brackets than the limit', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}', false],
    ['many shallow siblings (more brackets than the limit, depth 2)', `[${'[],'.repeat(20)}[]]`, false],
    ['brackets inside a string', `{"text":"${'[{'.repeat(20)}"}`, false],
    ['brackets after an escaped quote, still inside the string', `{"text":"\\"${'['.repeat(20)}"}`, false],
    ['deep nesting after a string full of brackets', `{"text":"${'['.repeat(20)}","deep":${nestedArrays(4)}}`, true],
  ])('%s', (_case, text, expected) => {
    expect(nestedDeeperThan(text, 4)).toBe(expected);
  });
});
