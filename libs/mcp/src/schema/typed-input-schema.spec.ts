import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { MCP_ARGS_METADATA } from '../decorators/constants.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { Arg, CurrentUser } from '../decorators/tool-parameter.decorators.js';
import type { UserInfo } from '../caller.js';
import type { ParameterTypes, ToolTypes } from '../types-plugin/tool-types.js';
import { buildInputSchema, toolParameters } from './build-input-schema.js';

/** `type.method`'s schema when the types plugin recorded `parameters` for it, as the explorer builds it. */
function build(type: Function, method: string, parameters: ParameterTypes[]) {
  const types: ToolTypes = { parameters };
  const source = {
    owner: `${type.name}.${method}`,
    paramTypes: Reflect.getMetadata('design:paramtypes', type.prototype, method) ?? [],
    parameters: Reflect.getOwnMetadata(MCP_ARGS_METADATA, type.prototype, method) ?? [],
    types,
  };
  return { ...buildInputSchema(source), parameters: toolParameters(source) };
}

const UNIT: ParameterTypes = { name: 'unit', optional: true, default: 'mmol/L', schema: { type: 'string', enum: ['mmol/L', 'mg/dL'] } };

class Tools {
  plain(@CurrentUser() user: UserInfo, indicator: string, unit = 'mmol/L') {
    return [user, indicator, unit];
  }
  renamed(@Arg('metric_name') metricName: string) {
    return metricName;
  }
  integer(@Arg('days', { type: 'integer', schema: { minimum: 1 } }) days = 30) {
    return days;
  }
  otherEnum(@Arg('unit', { enum: ['celsius', 'fahrenheit'] }) unit: string) {
    return unit;
  }
  otherDefault(@Arg('days', { default: 7 }) days = 30) {
    return days;
  }
  otherDescription(@Arg('q', { description: 'The query' }) q: string) {
    return q;
  }
  overridesRefused(@Arg('when', { type: 'string', schema: { format: 'date-time' } }) when: unknown) {
    return when;
  }
  // A method decorator, as every tool has, is what makes the compiler record the parameter types.
  @McpTool()
  refused(when: unknown) {
    return when;
  }
}

describe('buildInputSchema with the types plugin’s reading', () => {
  it('names the undecorated parameters after themselves and takes their schema, optionality and default from the types', () => {
    const built = build(Tools, 'plain', [
      { name: 'user', injected: true, optional: false },
      { name: 'indicator', optional: false, description: 'Exact name', schema: { type: 'string' } },
      UNIT,
    ]);
    expect(built.schema).toEqual({
      type: 'object',
      properties: { indicator: { type: 'string', description: 'Exact name' }, unit: { type: 'string', enum: ['mmol/L', 'mg/dL'], default: 'mmol/L' } },
      required: ['indicator'],
      additionalProperties: false,
    });
    expect(built.parameters.map(({ index, kind, name }) => [index, kind, name])).toEqual([
      [0, 'caller', undefined],
      [1, 'arg', 'indicator'],
      [2, 'arg', 'unit'],
    ]);
  });

  it('lets @Arg rename, refine a number to an integer and add constraints', () => {
    expect(build(Tools, 'renamed', [{ name: 'metricName', optional: false, schema: { type: 'string' } }]).schema.properties).toEqual({
      metric_name: { type: 'string' },
    });
    expect(build(Tools, 'integer', [{ name: 'days', optional: true, default: 30, schema: { type: 'number' } }]).schema.properties).toEqual({
      days: { type: 'integer', minimum: 1, default: 30 },
    });
  });

  it('takes the @Arg description over the doc comment', () => {
    const built = build(Tools, 'otherDescription', [{ name: 'q', optional: false, description: 'Search text', schema: { type: 'string' } }]);
    expect(built.schema.properties).toEqual({ q: { type: 'string', description: 'The query' } });
  });

  it('lets @Arg describe a type the plugin refuses', () => {
    const built = build(Tools, 'overridesRefused', [{ name: 'when', optional: false, refused: { reason: 'its type is unknown', fix: 'name it' } }]);
    expect(built.schema.properties).toEqual({ when: { type: 'string', format: 'date-time' } });
  });

  it.each([
    [
      'otherEnum',
      { name: 'unit', optional: false, schema: { type: 'string', enum: ['c', 'f'] } },
      'its @Arg says the type {"type":"string","enum":["celsius","fahrenheit"]} and its TypeScript declaration says {"type":"string","enum":["c","f"]}',
    ],
    [
      'otherDefault',
      { name: 'days', optional: true, default: 30, schema: { type: 'number' } },
      'its @Arg says the default 7 and its TypeScript declaration says 30',
    ],
    [
      'refused',
      { name: 'when', optional: false, refused: { reason: 'its type is unknown, which says nothing of what to send', fix: 'name the type' } },
      'Tools.refused argument "when": its type is unknown, which says nothing of what to send. Fix: name the type',
    ],
  ])('stops start-up where the two disagree or the type is refused: %s', (method, parameter, message) => {
    expect(() => build(Tools, method, [parameter as ParameterTypes])).toThrow(message);
  });

  it('refuses metadata older than the code', () => {
    expect(() => build(Tools, 'plain', [UNIT])).toThrow('the types plugin recorded 1 parameters and the method has 3');
  });
});
