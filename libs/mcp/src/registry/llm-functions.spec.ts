import { describe, expect, it } from '@jest/globals';
import { toGeminiFunction, toOpenAiChatFunction, toOpenAiResponsesFunction, type FunctionSource } from './llm-functions.js';

const inputSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    goal: { type: 'integer', description: 'Goal in mg/dL' },
    range: { type: 'object', properties: { min: { type: 'number' } }, required: ['min'], additionalProperties: false },
    ranges: { type: 'array', items: { type: 'object', properties: { max: { type: 'number' } }, additionalProperties: false } },
  },
  required: ['goal'],
  additionalProperties: false,
};

const tool: FunctionSource = { name: 'count_readings_above_goal', description: 'Count readings above a goal', inputSchema };

describe('LLM function descriptors', () => {
  it('OpenAI Chat Completions nests the function', () => {
    expect(toOpenAiChatFunction(tool)).toEqual({
      type: 'function',
      function: { name: 'count_readings_above_goal', description: 'Count readings above a goal', parameters: inputSchema },
    });
  });

  it('OpenAI Responses is flat', () => {
    expect(toOpenAiResponsesFunction(tool)).toEqual({
      type: 'function',
      name: 'count_readings_above_goal',
      description: 'Count readings above a goal',
      parameters: inputSchema,
    });
  });

  it('Gemini drops additionalProperties and $schema at every depth and keeps the rest', () => {
    const declaration = toGeminiFunction(tool);
    expect(declaration).toEqual({
      name: 'count_readings_above_goal',
      description: 'Count readings above a goal',
      parameters: {
        type: 'object',
        properties: {
          goal: { type: 'integer', description: 'Goal in mg/dL' },
          range: { type: 'object', properties: { min: { type: 'number' } }, required: ['min'] },
          ranges: { type: 'array', items: { type: 'object', properties: { max: { type: 'number' } } } },
        },
        required: ['goal'],
      },
    });
    expect(JSON.stringify(declaration)).not.toMatch(/additionalProperties|\$schema/);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['keeps a string enum', { type: 'string', enum: ['asc', 'desc'] }, { type: 'string', enum: ['asc', 'desc'] }],
    [
      'moves an integer enum into the description',
      { type: 'integer', enum: [0, 1], description: 'Level' },
      { type: 'integer', description: 'Level Allowed values: 0, 1.' },
    ],
    ['moves a mixed enum into the description', { enum: [0, 'named'] }, { description: 'Allowed values: 0, "named".' }],
    [
      'does so inside array items',
      { type: 'array', items: { type: 'number', enum: [0.5, 1] } },
      { type: 'array', items: { type: 'number', description: 'Allowed values: 0.5, 1.' } },
    ],
  ])('Gemini %s (it accepts string enum members only)', (_label, property, expected) => {
    const { parameters } = toGeminiFunction({ name: 'x', inputSchema: { type: 'object', properties: { v: property } } });
    expect(parameters).toEqual({ type: 'object', properties: { v: expected } });
  });

  it('Gemini does not modify the published schema', () => {
    toGeminiFunction(tool);
    expect(inputSchema.additionalProperties).toBe(false);
    expect(inputSchema.properties.range.additionalProperties).toBe(false);
  });

  it.each([toOpenAiChatFunction, toOpenAiResponsesFunction, toGeminiFunction].map((fn) => [fn.name, fn] as const))(
    '%s gives an empty description when the tool has none',
    (_name, fn) => {
      expect(JSON.stringify(fn({ name: 'x', inputSchema: { type: 'object' } }))).toContain('"description":""');
    },
  );
});
