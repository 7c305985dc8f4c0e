import { describe, expect, it } from '@jest/globals';
import { paramHeaderMismatch, paramHeadersOf } from './mcp-param-headers.js';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    level: { type: 'integer', 'x-mcp-header': 'Level' },
    nested: { type: 'object', properties: { flag: { type: 'boolean', 'x-mcp-header': 'Flag' } } },
    listed: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Hidden' } },
    plain: { type: 'string' },
  },
};
const mirrored = paramHeadersOf(schema);
const base64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

describe('paramHeadersOf', () => {
  it('finds x-mcp-header on properties reached through properties alone, at any depth', () => {
    expect(mirrored).toEqual([
      { path: ['region'], header: 'Region', type: 'string' },
      { path: ['level'], header: 'Level', type: 'integer' },
      { path: ['nested', 'flag'], header: 'Flag', type: 'boolean' },
    ]);
    expect(paramHeadersOf({ type: 'object', 'x-mcp-header': 'Root' })).toEqual([]);
  });
});

describe('paramHeaderMismatch', () => {
  it.each([
    [
      'the values, literally',
      { region: 'eu', level: 3, nested: { flag: true } },
      { 'mcp-param-region': 'eu', 'mcp-param-level': '3', 'mcp-param-flag': 'true' },
    ],
    ['surrounded by spaces', { region: 'eu' }, { 'mcp-param-region': '  eu ' }],
    ['Base64 of a value', { region: 'Grüße' }, { 'mcp-param-region': base64('Grüße') }],
    ['a number spelled otherwise', { level: 3 }, { 'mcp-param-level': '3.0' }],
    ['a value that only looks like Base64 without the suffix', { region: '=?base64?ZXU=' }, { 'mcp-param-region': '=?base64?ZXU=' }],
    ['no header for an absent or null argument', { region: null }, {}],
  ])('accepts %s', (_what, args, headers) => {
    expect(paramHeaderMismatch(mirrored, args, headers)).toBeUndefined();
  });

  it.each([
    ['a missing header', { region: 'eu' }, {}, 'the body carries region="eu" but the Mcp-Param-Region header is absent'],
    ['a different value', { region: 'eu' }, { 'mcp-param-region': 'us' }, 'the Mcp-Param-Region header says "us" but the body carries region="eu"'],
    ['a value of another case', { region: 'eu' }, { 'mcp-param-region': 'EU' }, 'says "EU"'],
    ['Base64 without its padding', { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }, 'invalid Base64'],
    ['Base64 with characters outside its alphabet', { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }, 'invalid Base64'],
    [
      'Base64 of bytes that are not UTF-8',
      { region: 'x' },
      { 'mcp-param-region': `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=` },
      'invalid Base64',
    ],
    ['a nested value', { nested: { flag: false } }, { 'mcp-param-flag': 'true' }, 'nested.flag=false'],
  ])('refuses %s, saying what disagrees', (_what, args, headers, message) => {
    expect(paramHeaderMismatch(mirrored, args, headers)).toContain(message);
  });
});
