import { describe, expect, it } from '@jest/globals';
import type { JsonSchema } from '../decorators/metadata.types.js';
import { ArgumentValidator } from './argument-validator.js';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    goal: { type: 'integer' },
    days: { type: 'integer', default: 7 },
    unit: { type: 'string', enum: ['mg/dL', 'mmol/L'], default: 'mg/dL' },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string' } },
    range: {
      type: 'object',
      properties: { min: { type: 'number' }, max: { type: 'number', default: 100 } },
      required: ['min'],
      additionalProperties: false,
    },
  },
  required: ['goal'],
  additionalProperties: false,
};

describe('ArgumentValidator', () => {
  const validate = new ArgumentValidator().compile(schema);

  describe('rejects with a message naming the argument', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['missing required', {}, 'missing required argument "goal"'],
      ['wrong type', { goal: 'high' }, 'argument "goal" must be integer'],
      ['a fraction for an integer', { goal: 1.5 }, 'argument "goal" must be integer'],
      ['a numeric string is not coerced', { goal: '180' }, 'argument "goal" must be integer'],
      ['unknown argument', { goal: 1, colour: 'red' }, 'unknown argument "colour"'],
      ['value outside the enum', { goal: 1, unit: 'kg' }, 'argument "unit" must be one of: "mg/dL", "mmol/L"'],
      ['format', { goal: 1, email: 'not-an-email' }, 'argument "email" must match format "email"'],
      ['array element', { goal: 1, tags: ['a', 2] }, 'argument "tags.1" must be string'],
      ['nested missing', { goal: 1, range: {} }, 'missing required argument "range.min"'],
      ['nested unknown', { goal: 1, range: { min: 1, avg: 2 } }, 'unknown argument "range.avg"'],
      ['nested type', { goal: 1, range: { min: 'low' } }, 'argument "range.min" must be number'],
    ])('%s', (_label, args, message) => {
      expect(validate(args)).toContain(message);
    });
  });

  it('reports every problem at once', () => {
    const problem = validate({ goal: 'x', extra: true });
    expect(problem).toContain('argument "goal" must be integer');
    expect(problem).toContain('unknown argument "extra"');
  });

  it('refuses text with half of a surrogate pair, which UTF-8 cannot encode, and takes whole pairs', () => {
    const unicode = 'is not valid Unicode: it holds half of a surrogate pair (a character such as an emoji cut in two)';
    expect(validate({ goal: 1, email: 'a\ud83d@example.com', tags: ['ok', 'cut \ude00'] })).toBe(
      `argument "email" must match format "email"; argument "email" ${unicode}; argument "tags.1" ${unicode}`,
    );
    expect(validate({ goal: 1, tags: ['tea \ud83c\udf75', '\u00e9'] })).toBeUndefined();
  });

  it('accepts valid arguments and applies defaults in place', () => {
    const args: Record<string, unknown> = { goal: 180, range: { min: 70 } };
    expect(validate(args)).toBeUndefined();
    expect(args).toEqual({ goal: 180, days: 7, unit: 'mg/dL', range: { min: 70, max: 100 } });
  });

  it('keeps values the caller gave over defaults', () => {
    const args: Record<string, unknown> = { goal: 180, days: 30, unit: 'mmol/L' };
    expect(validate(args)).toBeUndefined();
    expect(args).toMatchObject({ days: 30, unit: 'mmol/L' });
  });

  it('compiles a hand-written schema that declares the 2020-12 dialect', () => {
    const validate2020 = new ArgumentValidator().compile({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } },
      required: ['point'],
    });
    expect(validate2020({ point: [1, 2] })).toBeUndefined();
    expect(validate2020({})).toBe('missing required argument "point"');
    expect(validate2020({ point: [1, 'x'] })).toContain('argument "point.1" must be number');
  });
});
