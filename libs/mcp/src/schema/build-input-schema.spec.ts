import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { MCP_ARGS_METADATA } from '../decorators/constants.js';
import type { JsonSchema, ToolParameterMetadata } from '../decorators/metadata.types.js';
import { Arg, CurrentUser, SchemaProperty, ToolContext } from '../decorators/tool-parameter.decorators.js';
import type { UserInfo } from '../caller.js';
import type { McpToolContext } from '../context/mcp-tool-context.js';
import { fail, ok, type ToolResult } from '../registry/tool-result.js';
import { buildInputSchema, type BuiltInputSchema } from './build-input-schema.js';
import { ToolDefinitionError } from './tool-definition.error.js';

/** Builds the schema of `type.method` from the metadata the decorators and SWC emitted, as the explorer does. */
function build(type: Function, method: string, inputSchema?: JsonSchema): BuiltInputSchema {
  return buildInputSchema({
    owner: `${type.name}.${method}`,
    paramTypes: Reflect.getMetadata('design:paramtypes', type.prototype, method) ?? [],
    parameters: Reflect.getOwnMetadata(MCP_ARGS_METADATA, type.prototype, method) ?? [],
    inputSchema,
  });
}

/** The schema of the single argument `v` of `type.method`. */
function argSchema(type: Function, method: string): JsonSchema {
  const { schema } = build(type, method);
  return (schema.properties as Record<string, JsonSchema>).v;
}

enum Color {
  Red = 'red',
  Green = 'green',
}

enum Level {
  Low,
  High,
}

enum Mixed {
  Zero = 0,
  Named = 'named',
}

interface Shape {
  side: number;
}

type Literal = 'a' | 'b';

class NoFields {
  value: string;
}

class RangeInput {
  @SchemaProperty({ description: 'Lower bound' })
  min: number;

  @SchemaProperty({ default: 100 })
  max: number;

  @SchemaProperty({ optional: true, items: String })
  tags?: string[];
}

class WrapperInput {
  @SchemaProperty()
  range: RangeInput;

  @SchemaProperty({ enum: Color })
  color: Color;
}

class BadFieldInput {
  @SchemaProperty()
  when: Date;
}

class PeriodInput {
  @SchemaProperty({ description: 'Start date' })
  from: string;

  @SchemaProperty({ optional: true })
  note?: string;
}

class LabeledPeriodInput extends PeriodInput {
  @SchemaProperty()
  label: string;

  @SchemaProperty({ description: 'Now required' })
  override note: string = '';
}

class TreeNode {
  @SchemaProperty()
  label: string;

  @SchemaProperty({ items: TreeNode, optional: true })
  children: TreeNode[];
}

const RANGE_SCHEMA = {
  type: 'object',
  properties: {
    min: { type: 'number', description: 'Lower bound' },
    max: { type: 'number', default: 100 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['min'],
  additionalProperties: false,
};

class Mappable {
  string(@Arg('v') v: string) {}
  number(@Arg('v') v: number) {}
  integer(@Arg('v', { type: 'integer' }) v: number) {}
  boolean(@Arg('v') v: boolean) {}
  stringWord(@Arg('v', { type: 'string' }) v: unknown) {}
  stringArray(@Arg('v', { items: String }) v: string[]) {}
  integerArray(@Arg('v', { items: 'integer' }) v: number[]) {}
  schemaArray(@Arg('v', { items: { type: 'string', format: 'date' } }) v: string[]) {}
  inputClassArray(@Arg('v', { items: RangeInput }) v: RangeInput[]) {}
  recordWord(@Arg('v', { type: 'object' }) v: Record<string, unknown>) {}
  recordConstructor(@Arg('v', { type: Object }) v: Record<string, unknown>) {}
  inputClass(@Arg('v') v: RangeInput) {}
  nestedInputClass(@Arg('v') v: WrapperInput) {}
  stringList(@Arg('v', { enum: ['asc', 'desc'] }) v: 'asc' | 'desc') {}
  stringTsEnum(@Arg('v', { enum: Color }) v: Color) {}
  numericTsEnum(@Arg('v', { enum: Level }) v: Level) {}
  mixedTsEnum(@Arg('v', { enum: Mixed }) v: Mixed) {}
  fractionList(@Arg('v', { enum: [0.5, 1] }) v: number) {}
  mixedList(@Arg('v', { enum: ['a', 1] }) v: string | number) {}
  extraKeywords(@Arg('v', { description: 'How many', type: 'integer', schema: { minimum: 1, maximum: 10 } }) v: number) {}
  inheritedInputClass(@Arg('v') v: LabeledPeriodInput) {}
}

class Refused {
  union(@Arg('v') v: string | number) {}
  nullable(@Arg('v') v: string | null) {}
  iface(@Arg('v') v: Shape) {}
  anything(@Arg('v') v: any) {}
  record(@Arg('v') v: Record<string, unknown>) {}
  literalAlias(@Arg('v') v: Literal) {}
  date(@Arg('v') v: Date) {}
  plainClass(@Arg('v') v: NoFields) {}
  arrayWithoutItems(@Arg('v') v: string[]) {}
  enumOnArray(@Arg('v', { enum: ['a', 'b'] }) v: string[]) {}
  emptyEnum(@Arg('v', { enum: [] }) v: string) {}
  badField(@Arg('v') v: BadFieldInput) {}
  badItems(@Arg('v', { items: Date }) v: Date[]) {}
  undecorated(@Arg('a') a: string, b: string) {}
  sameName(@Arg('v') a: string, @Arg('v') b: string) {}
  twoDecorators(@Arg('v') @CurrentUser() v: string) {}
  recursive(@Arg('v') v: TreeNode) {}
}

class Requiredness {
  plain(@Arg('v') v: string) {}
  numberDefault(@Arg('v', { default: 5 }) v: number) {}
  zeroDefault(@Arg('v', { default: 0 }) v: number) {}
  falseDefault(@Arg('v', { default: false }) v: boolean) {}
  emptyStringDefault(@Arg('v', { default: '' }) v: string) {}
  arrayDefault(@Arg('v', { items: String, default: ['a'] }) v: string[]) {}
  optional(@Arg('v', { optional: true }) v?: string) {}
  nullDefault(@Arg('v', { default: null }) v: string) {}
  undefinedDefault(@Arg('v', { default: undefined }) v: string) {}
}

class ReturnAnnotations {
  withReturn(@Arg('text') text: string, @Arg('limit', { type: 'integer', default: 10 }) limit: number): ToolResult<string> {
    return ok(text.slice(0, limit));
  }

  withoutReturn(@Arg('text') text: string, @Arg('limit', { type: 'integer', default: 10 }) limit: number) {
    return text ? ok(text.slice(0, limit)) : fail('empty');
  }

  async asyncWithReturn(@Arg('text') text: string, @Arg('limit', { type: 'integer', default: 10 }) limit: number): Promise<ToolResult<string>> {
    return ok(text.slice(0, limit));
  }
}

class Hidden {
  withCaller(@CurrentUser() user: UserInfo, @ToolContext() context: McpToolContext, @Arg('query') query: string) {}
  userIdCamel(@Arg('userId') userId: string) {}
  userIdSnake(@Arg('user_id') userId: string) {}
  otherName(@Arg('user') user: string) {}
  undescribableWithVerbatim(@Arg('filter') filter: Shape, @CurrentUser() user: UserInfo) {}
}

describe('buildInputSchema', () => {
  describe('maps reflected types and options to JSON Schema', () => {
    it.each<[string, JsonSchema]>([
      ['string', { type: 'string' }],
      ['number', { type: 'number' }],
      ['integer', { type: 'integer' }],
      ['boolean', { type: 'boolean' }],
      ['stringWord', { type: 'string' }],
      ['stringArray', { type: 'array', items: { type: 'string' } }],
      ['integerArray', { type: 'array', items: { type: 'integer' } }],
      ['schemaArray', { type: 'array', items: { type: 'string', format: 'date' } }],
      ['inputClassArray', { type: 'array', items: RANGE_SCHEMA }],
      ['recordWord', { type: 'object' }],
      ['recordConstructor', { type: 'object' }],
      ['inputClass', RANGE_SCHEMA],
      [
        'nestedInputClass',
        {
          type: 'object',
          properties: { range: RANGE_SCHEMA, color: { type: 'string', enum: ['red', 'green'] } },
          required: ['range', 'color'],
          additionalProperties: false,
        },
      ],
      ['stringList', { type: 'string', enum: ['asc', 'desc'] }],
      ['stringTsEnum', { type: 'string', enum: ['red', 'green'] }],
      ['numericTsEnum', { type: 'integer', enum: [0, 1] }],
      ['mixedTsEnum', { enum: [0, 'named'] }],
      ['fractionList', { type: 'number', enum: [0.5, 1] }],
      ['mixedList', { enum: ['a', 1] }],
      ['extraKeywords', { type: 'integer', description: 'How many', minimum: 1, maximum: 10 }],
      [
        'inheritedInputClass',
        {
          type: 'object',
          properties: { from: { type: 'string', description: 'Start date' }, note: { type: 'string', description: 'Now required' }, label: { type: 'string' } },
          required: ['from', 'note', 'label'],
          additionalProperties: false,
        },
      ],
    ])('%s', (method, expected) => {
      expect(argSchema(Mappable, method)).toEqual(expected);
    });
  });

  it('wraps the arguments in a closed object schema listing the required ones', () => {
    expect(build(Mappable, 'string').schema).toEqual({
      type: 'object',
      properties: { v: { type: 'string' } },
      required: ['v'],
      additionalProperties: false,
    });
  });

  describe('refuses what it cannot know, naming the tool, the parameter and the fix', () => {
    it.each<[string, string, RegExp]>([
      ['union', 'argument "v"', /reflects as Object.*Fix: declare \{ type: "object" \}/],
      ['nullable', 'argument "v"', /reflects as Object/],
      ['iface', 'argument "v"', /reflects as Object/],
      ['anything', 'argument "v"', /reflects as Object/],
      ['record', 'argument "v"', /reflects as Object/],
      ['literalAlias', 'argument "v"', /reflects as Object.*enum/],
      ['date', 'argument "v"', /type Date has no JSON Schema mapping.*Fix:.*@SchemaProperty/],
      ['plainClass', 'argument "v"', /type NoFields has no JSON Schema mapping/],
      ['arrayWithoutItems', 'argument "v"', /array without an element type.*Fix: add items/],
      ['enumOnArray', 'argument "v"', /enum on an array.*Fix: put the enum on the elements/],
      ['emptyEnum', 'argument "v"', /enum is empty/],
      ['badField', 'argument "v" field BadFieldInput.when', /type Date has no JSON Schema mapping/],
      ['badItems', 'argument "v" items', /type Date has no JSON Schema mapping/],
      ['undecorated', 'parameter #1', /no MCP parameter decorator.*Fix: mark it with @Arg/],
      ['sameName', 'argument "v"', /used by two parameters.*Fix: give each @Arg a distinct name/],
      ['twoDecorators', 'parameter #0', /two MCP parameter decorators/],
      ['recursive', 'argument "v" field TreeNode.children items', /the input class TreeNode contains itself.*Fix: describe the recursive part/],
    ])('%s', (method, parameter, problem) => {
      let error: unknown;
      try {
        build(Refused, method);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ToolDefinitionError);
      const { message } = error as Error;
      expect(message.startsWith(`Refused.${method} ${parameter}`)).toBe(true);
      expect(message).toMatch(problem);
      expect(message).toContain('Fix: ');
    });

    it('refuses a parameter whose type metadata was never emitted', () => {
      const parameters: ToolParameterMetadata[] = [{ index: 0, kind: 'arg', name: 'v', options: {} }];
      expect(() => buildInputSchema({ owner: 'LegacyService.lookup', paramTypes: [], parameters })).toThrow(
        /^LegacyService\.lookup argument "v": no type metadata was emitted for it\. Fix: enable emitDecoratorMetadata/,
      );
    });

    it('never falls back to string', () => {
      for (const method of ['union', 'iface', 'anything', 'record', 'literalAlias', 'date']) {
        expect(() => build(Refused, method)).toThrow(ToolDefinitionError);
      }
    });
  });

  describe('requires an argument unless it has a default or is optional', () => {
    it.each<[string, boolean, JsonSchema]>([
      ['plain', true, { type: 'string' }],
      ['numberDefault', false, { type: 'number', default: 5 }],
      ['zeroDefault', false, { type: 'number', default: 0 }],
      ['falseDefault', false, { type: 'boolean', default: false }],
      ['emptyStringDefault', false, { type: 'string', default: '' }],
      ['arrayDefault', false, { type: 'array', items: { type: 'string' }, default: ['a'] }],
      ['optional', false, { type: 'string' }],
      ['nullDefault', false, { type: 'string' }],
    ])('%s', (method, required, property) => {
      const { schema } = build(Requiredness, method);
      expect(schema.properties).toEqual({ v: property });
      if (required) expect(schema.required).toEqual(['v']);
      else expect(schema).not.toHaveProperty('required');
    });

    it('leaves an undefined default out of the schema', () => {
      expect(argSchema(Requiredness, 'undefinedDefault')).not.toHaveProperty('default');
    });

    it('lists required fields of an input class on the nested object', () => {
      const { schema } = build(Mappable, 'inputClass');
      expect(schema.required).toEqual(['v']);
      expect((schema.properties as Record<string, JsonSchema>).v.required).toEqual(['min']);
    });
  });

  it('gives the same schema whether or not the method declares its return type', () => {
    const expected = {
      type: 'object',
      properties: { text: { type: 'string' }, limit: { type: 'integer', default: 10 } },
      required: ['text'],
      additionalProperties: false,
    };
    expect(build(ReturnAnnotations, 'withReturn').schema).toEqual(expected);
    expect(build(ReturnAnnotations, 'withoutReturn').schema).toEqual(expected);
    expect(build(ReturnAnnotations, 'asyncWithReturn').schema).toEqual(expected);
  });

  describe('the caller', () => {
    it('keeps @CurrentUser() and @ToolContext() out of the schema', () => {
      expect(build(Hidden, 'withCaller')).toEqual({
        schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false },
        warnings: [],
      });
    });

    it.each([
      ['userIdCamel', 'userId'],
      ['userIdSnake', 'user_id'],
    ])('warns about an argument named like a user id (%s)', (method, name) => {
      const { warnings } = build(Hidden, method);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`Hidden.${method}: argument "${name}"`);
      expect(warnings[0]).toContain('@CurrentUser()');
    });

    it('does not warn about other argument names', () => {
      expect(build(Hidden, 'otherName').warnings).toEqual([]);
    });
  });

  describe('a hand-written inputSchema', () => {
    const verbatim = { type: 'object', properties: { filter: { type: 'object', minProperties: 1 } }, required: ['filter'], $comment: 'hand-written' };

    it('is used verbatim, even where the reflected types could not be described', () => {
      expect(build(Hidden, 'undescribableWithVerbatim', verbatim).schema).toBe(verbatim);
    });

    it('still gets the user id warning', () => {
      expect(build(Hidden, 'userIdCamel', { type: 'object' }).warnings).toHaveLength(1);
    });
  });
});
