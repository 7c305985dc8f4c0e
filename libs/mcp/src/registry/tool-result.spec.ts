import { describe, expect, it } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { errorResult, fail, ok, toCallToolResult } from './tool-result.js';

describe('toCallToolResult', () => {
  it.each<[string, unknown, CallToolResult]>([
    ['fail(message)', fail('No readings in range'), { content: [{ type: 'text', text: 'No readings in range' }], isError: true }],
    ['{ success: false } without a message', { success: false, error: '' }, { content: [{ type: 'text', text: 'Tool failed' }], isError: true }],
    ['ok(object)', ok({ count: 3 }), { content: [{ type: 'text', text: '{"count":3}' }], structuredContent: { count: 3 } }],
    ['ok(array)', ok([1, 2]), { content: [{ type: 'text', text: '[1,2]' }], structuredContent: { result: [1, 2] } }],
    ['ok(number)', ok(0), { content: [{ type: 'text', text: '0' }], structuredContent: { result: 0 } }],
    ['ok(false)', ok(false), { content: [{ type: 'text', text: 'false' }], structuredContent: { result: false } }],
    ['ok(null)', ok(null), { content: [{ type: 'text', text: 'null' }], structuredContent: { result: null } }],
    ['ok(string)', ok('7 readings'), { content: [{ type: 'text', text: '7 readings' }] }],
    ['ok()', ok(), { content: [] }],
    ['plain string', 'hello "world"', { content: [{ type: 'text', text: 'hello "world"' }] }],
    [
      'plain object',
      { a: 1, nested: { b: [true] } },
      { content: [{ type: 'text', text: '{"a":1,"nested":{"b":[true]}}' }], structuredContent: { a: 1, nested: { b: [true] } } },
    ],
    ['plain array', [{ id: 1 }], { content: [{ type: 'text', text: '[{"id":1}]' }], structuredContent: { result: [{ id: 1 }] } }],
    ['plain number', 42, { content: [{ type: 'text', text: '42' }], structuredContent: { result: 42 } }],
    ['undefined', undefined, { content: [] }],
    ['null', null, { content: [] }],
  ])('%s', (_label, value, expected) => {
    expect(toCallToolResult(value)).toEqual(expected);
  });

  it.each<[string, unknown, CallToolResult]>([
    ['a Date', ok(new Date(0)), { content: [{ type: 'text', text: '"1970-01-01T00:00:00.000Z"' }], structuredContent: { result: '1970-01-01T00:00:00.000Z' } }],
    ['an object with toJSON', ok({ toJSON: () => ({ mmol: 5.5 }) }), { content: [{ type: 'text', text: '{"mmol":5.5}' }], structuredContent: { mmol: 5.5 } }],
  ])('publishes %s as what it serializes to, in both forms', (_label, value, expected) => {
    expect(toCallToolResult(value)).toEqual(expected);
  });

  it('passes a full MCP result through untouched', () => {
    const full: CallToolResult = {
      content: [
        { type: 'text', text: 'chart attached' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
      structuredContent: { points: 2 },
      isError: false,
    };
    expect(toCallToolResult(full)).toBe(full);
  });

  it('passes a full MCP error result through untouched', () => {
    const full: CallToolResult = { content: [{ type: 'text', text: 'quota exceeded' }], isError: true };
    expect(toCallToolResult(full)).toBe(full);
  });

  it('passes an input-required result through untouched', () => {
    const request = { resultType: 'input_required', inputRequests: {} };
    expect(toCallToolResult(request)).toBe(request);
  });

  it('does not JSON-quote a string result', () => {
    const [content] = (toCallToolResult('plain') as CallToolResult).content;
    expect(content).toEqual({ type: 'text', text: 'plain' });
    expect((toCallToolResult(ok('plain')) as CallToolResult).content[0]).toEqual({ type: 'text', text: 'plain' });
  });
});

describe('errorResult', () => {
  it('is a text result flagged as an error', () => {
    expect(errorResult('sensor offline')).toEqual({ content: [{ type: 'text', text: 'sensor offline' }], isError: true });
  });
});
