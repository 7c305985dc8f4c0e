import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolTypesSource } from './tool-types-source.js';
import type { ParameterTypes, ToolTypes } from './tool-types.js';

const directory = mkdtempSync(join(tmpdir(), 'tool-types-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const source = new ToolTypesSource();
let files = 0;

/** The tool types of `method` of the first tool class in `code`, as the plugin reads them. */
function typesOf(code: string, method = 'tool'): ToolTypes {
  const file = join(directory, `tool-${++files}.ts`);
  writeFileSync(file, `declare function McpTool(options?: object): MethodDecorator;\ndeclare function CurrentUser(): ParameterDecorator;\n${code}`);
  const [types] = source.read(file).values();
  return types![method]!;
}

/** The reading of the one parameter `v` declared as `declaration` (with whatever the test puts before the class). */
function parameter(declaration: string, before = ''): ParameterTypes {
  return typesOf(`${before}\nclass T { @McpTool() tool(${declaration}) { return 1; } }`).parameters[0]!;
}

describe('the types plugin: TypeScript types to JSON Schema', () => {
  it.each([
    ['v: string', { type: 'string' }],
    ['v: number', { type: 'number' }],
    ['v: boolean', { type: 'boolean' }],
    ["v: 'celsius' | 'fahrenheit'", { type: 'string', enum: ['celsius', 'fahrenheit'] }],
    ['v: 1 | 2 | 3', { type: 'integer', enum: [1, 2, 3] }],
    ['v: 0.5 | 1', { type: 'number', enum: [0.5, 1] }],
    ['v: string | null', { type: ['string', 'null'] }],
    ["v: 'a' | 'b' | null", { type: ['string', 'null'], enum: ['a', 'b', null] }],
    ['v: string[]', { type: 'array', items: { type: 'string' } }],
    ['v: Array<number>', { type: 'array', items: { type: 'number' } }],
    ['v: readonly boolean[]', { type: 'array', items: { type: 'boolean' } }],
    ['v: Record<string, number>', { type: 'object', additionalProperties: { type: 'number' } }],
    ['v: Record<string, unknown>', { type: 'object' }],
  ])('%s → %j', (declaration, schema) => {
    expect(parameter(declaration).schema).toEqual(schema);
  });

  it('a TS enum (string or numeric) is its values', () => {
    expect(parameter('v: Color', "enum Color { Red = 'red', Green = 'green' }").schema).toEqual({ type: 'string', enum: ['red', 'green'] });
    expect(parameter('v: Level', 'enum Level { Low, High }').schema).toEqual({ type: 'integer', enum: [0, 1] });
  });

  it('an interface, a type alias and a class are objects whose `required` follows `?`, with their fields’ doc comments', () => {
    const expected = {
      type: 'object',
      properties: { from: { type: 'string', description: 'First day' }, days: { type: 'integer', enum: [7, 30] } },
      required: ['from'],
      additionalProperties: false,
    };
    const fields = '\n  /** First day */\n  from: string;\n  days?: 7 | 30;\n';
    expect(parameter('v: Period', `interface Period {${fields}}`).schema).toEqual(expected);
    expect(parameter('v: Period', `type Period = {${fields}}`).schema).toEqual(expected);
    expect(parameter('v: Period', `class Period {${fields.replace('from:', 'from!:')}  total() { return 1; }\n}`).schema).toEqual(expected);
  });

  it('nests objects and arrays of objects', () => {
    expect(parameter('v: { points: { x: number }[] }').schema).toEqual({
      type: 'object',
      properties: { points: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false } } },
      required: ['points'],
      additionalProperties: false,
    });
  });

  it('`?` and a default make a parameter optional; a literal default is published', () => {
    expect(parameter('v?: string')).toEqual({ name: 'v', optional: true, schema: { type: 'string' } });
    expect(parameter('v = 30')).toEqual({ name: 'v', optional: true, default: 30, schema: { type: 'number' } });
    expect(parameter("v: 'mmol/L' | 'mg/dL' = 'mmol/L'")).toEqual({
      name: 'v',
      optional: true,
      default: 'mmol/L',
      schema: { type: 'string', enum: ['mmol/L', 'mg/dL'] },
    });
    expect(parameter('v = -1.5')).toMatchObject({ default: -1.5 });
    expect(parameter('v = DEFAULT', 'const DEFAULT = 4;')).toEqual({ name: 'v', optional: true, schema: { type: 'number' } });
    expect(parameter('v: string')).toEqual({ name: 'v', optional: false, schema: { type: 'string' } });
  });

  it('reads descriptions from @param, or from a doc comment in front of the parameter', () => {
    const types = typesOf(`class T {
      /**
       * Count readings.
       * @param indicator Exact indicator name
       */
      @McpTool() tool(indicator: string, /** Value to reach */ goal: number, plain: boolean) { return 1; }
    }`);
    expect(types.description).toBe('Count readings.');
    expect(types.parameters.map((entry) => entry.description)).toEqual(['Exact indicator name', 'Value to reach', undefined]);
  });

  it('leaves the parameters the server fills without a schema', () => {
    expect(parameter('@CurrentUser() v: { userId: string }')).toEqual({ name: 'v', injected: true, optional: false });
  });

  it.each([
    ['v: any', 'its type is any'],
    ['v: unknown', 'its type is unknown'],
    ['v: string | number', 'a union of different kinds'],
    ['v: Date', 'its type is Date'],
    ['v: () => void', 'is a function'],
    ['v: [string, number]', 'is a tuple'],
    ['v: bigint', 'has no JSON form'],
    ['v: { a: string; [key: string]: string }', 'mixes named fields with an index signature'],
    ['v: Node', 'contains itself'],
    ['{ a }: { a: string }', 'it is destructured'],
  ])('refuses %s (%s), with a fix', (declaration, reason) => {
    const read = parameter(declaration, 'interface Node { next?: Node }');
    expect(read.schema).toBeUndefined();
    expect(read.refused).toEqual({ reason: expect.stringContaining(reason), fix: expect.any(String) });
  });

  it('refuses a generic it cannot resolve', () => {
    const types = typesOf('class T { @McpTool() tool<V>(v: V) { return v; } }');
    expect(types.parameters[0]!.refused!.reason).toContain('type parameter');
  });

  it('gives an output schema for a ToolResult<T> or Promise<T> of an object type, open to more fields, dates as date-time', () => {
    const output = (returns: string) =>
      typesOf(`type ToolResult<T> = { success: true; data?: T } | { success: false; error: string };
      interface GoalCount { count: number; since: Date; unit?: string }
      class T { @McpTool() tool(): ${returns} { return null!; } }`).output;
    const schema = {
      type: 'object',
      properties: { count: { type: 'number' }, since: { type: 'string', format: 'date-time' }, unit: { type: 'string' } },
      required: ['count', 'since'],
    };
    expect(output('Promise<ToolResult<GoalCount>>')).toEqual(schema);
    expect(output('ToolResult<GoalCount>')).toEqual(schema);
    expect(output('Promise<GoalCount>')).toEqual(schema);
    expect(output('Promise<string>')).toBeUndefined();
    expect(output('Promise<GoalCount[]>')).toBeUndefined();
    expect(output('Promise<{ content: { type: "text"; text: string }[] }>')).toBeUndefined();
  });
});
