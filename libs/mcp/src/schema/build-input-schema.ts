import { MCP_SCHEMA_PROPERTIES_METADATA } from '../decorators/constants.js';
import type { JsonSchema, SchemaPropertyMetadata, SchemaTypeRef, SchemaValueOptions, ToolParameterMetadata } from '../decorators/metadata.types.js';
import type { ParameterTypes, ToolTypes } from '../types-plugin/tool-types.js';
import { ToolDefinitionError } from './tool-definition.error.js';

export interface InputSchemaSource {
  /** `Class.method`, used in every error and warning. */
  owner: string;
  /** `design:paramtypes` of the method, one entry per declared parameter. */
  paramTypes: readonly unknown[];
  parameters: readonly ToolParameterMetadata[];
  /** A hand-written schema that replaces the generated one. */
  inputSchema?: JsonSchema;
  /** What the types plugin read from the method's signature and JSDoc, when it ran. */
  types?: ToolTypes;
}

export interface BuiltInputSchema {
  schema: JsonSchema;
  warnings: string[];
}

const CALLER_ID_NAMES = new Set(['user_id', 'userId']);

/**
 * Builds a tool's input schema from its reflected parameter types and argument options.
 * Anything that cannot be known from the metadata is refused with an error naming the fix,
 * never published as a guess.
 */
export function buildInputSchema(source: InputSchemaSource): BuiltInputSchema {
  const parameters = checkEveryParameterIsDecorated({ ...source, parameters: toolParameters(source) });
  const args = parameters.filter((parameter) => parameter.kind === 'arg');
  const warnings = args
    .filter((arg) => CALLER_ID_NAMES.has(arg.name!))
    .map((arg) => `${source.owner}: argument "${arg.name}" lets the model choose whose data is used; take the caller from @CurrentUser() instead`);

  if (source.inputSchema) return { schema: source.inputSchema, warnings };

  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const arg of args) {
    const where = `${source.owner} argument "${arg.name}"`;
    if (properties[arg.name!]) throw new ToolDefinitionError(where, 'the name is used by two parameters', 'give each @Arg a distinct name');
    const typed = source.types?.parameters[arg.index];
    properties[arg.name!] = typed
      ? typedValueSchema(where, typed, source.paramTypes[arg.index], arg.options)
      : valueSchema(where, source.paramTypes[arg.index], arg.options);
    if (typed ? !typed.optional && isRequired(arg.options) : isRequired(arg.options)) required.push(arg.name!);
  }
  return { schema: objectSchema(properties, required), warnings };
}

/**
 * The parameters of the method: those its decorators record and, where the types plugin ran, the
 * undecorated ones it named (each an argument under its own name).
 */
export function toolParameters(source: InputSchemaSource): ToolParameterMetadata[] {
  const decorated = [...source.parameters];
  const typed = source.types?.parameters;
  if (!typed) return decorated;
  if (typed.length !== source.paramTypes.length) {
    throw new ToolDefinitionError(
      source.owner,
      `the types plugin recorded ${typed.length} parameters and the method has ${source.paramTypes.length}`,
      'build again: the plugin metadata is older than the code',
    );
  }
  const byIndex = new Set(decorated.map((parameter) => parameter.index));
  const named = typed.flatMap((parameter, index): ToolParameterMetadata[] =>
    byIndex.has(index) || parameter.injected ? [] : [{ index, kind: 'arg', name: parameter.name, options: {} }],
  );
  return [...decorated, ...named];
}

/**
 * An argument's schema from the plugin's reading of its type, with what its `@Arg` adds (a name, a
 * description, a hand-written constraint, `integer` for a number). Where both give a default, a
 * type or allowed values they must agree: a disagreement stops start-up naming both rather than
 * letting one silently win. An `@Arg` description wins over the doc comment, which may then be a
 * note for the code's readers.
 */
function typedValueSchema(where: string, typed: ParameterTypes, reflected: unknown, options: SchemaValueOptions): JsonSchema {
  const overridesType = options.type !== undefined || options.enum !== undefined || options.items !== undefined;
  if (typed.refused && !overridesType && !options.schema?.type) throw new ToolDefinitionError(where, typed.refused.reason, typed.refused.fix);
  const disagree = (what: string, fromDecorator: unknown, fromTypes: unknown) =>
    new ToolDefinitionError(
      where,
      `its @Arg says ${what} ${JSON.stringify(fromDecorator)} and its TypeScript declaration says ${JSON.stringify(fromTypes)}`,
      'say it in one place: drop it from @Arg, or change the declaration',
    );
  if (options.default !== undefined && typed.default !== undefined && options.default !== typed.default)
    throw disagree('the default', options.default, typed.default);
  let schema: JsonSchema = { ...(typed.schema ?? {}) };
  if (overridesType) {
    const declared = valueSchema(where, reflected, { ...options, description: undefined, default: undefined, schema: undefined });
    const refinesNumber = declared.type === 'integer' && schema.type === 'number';
    if (typed.schema && !refinesNumber && !sameShape(declared, typed.schema)) throw disagree('the type', shapeOf(declared), shapeOf(typed.schema));
    schema = { ...schema, ...declared };
  }
  const description = options.description ?? typed.description;
  const fallback = options.default !== undefined ? options.default : typed.default;
  if (description) schema.description = description;
  if (fallback !== undefined && fallback !== null) schema.default = fallback;
  return { ...schema, ...options.schema };
}

const shapeOf = (schema: JsonSchema) => ({ type: schema.type, enum: schema.enum, items: schema.items });
const sameShape = (a: JsonSchema, b: JsonSchema) => JSON.stringify(shapeOf(a)) === JSON.stringify(shapeOf(b));

function checkEveryParameterIsDecorated(source: InputSchemaSource): ToolParameterMetadata[] {
  const byIndex = new Map<number, ToolParameterMetadata>();
  for (const parameter of source.parameters) {
    if (byIndex.has(parameter.index)) {
      throw new ToolDefinitionError(
        `${source.owner} parameter #${parameter.index}`,
        'it carries two MCP parameter decorators',
        'keep one of @Arg, @CurrentUser, @ToolContext',
      );
    }
    byIndex.set(parameter.index, parameter);
  }
  for (let index = 0; index < source.paramTypes.length; index++) {
    if (!byIndex.has(index)) {
      throw new ToolDefinitionError(
        `${source.owner} parameter #${index}`,
        'it has no MCP parameter decorator and the types plugin recorded nothing for it, so its name and meaning are unknown',
        'mark it with @Arg(name, options), @CurrentUser() or @ToolContext(); or let the types plugin read it: export the class from a ' +
          'file of apps/ or libs/ other than an entry file, and build with npm run build (a tool directory reads its .ts files itself)',
      );
    }
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

/** A `null` default still makes the argument optional (like Python's `= None`); it is only left out of the schema. */
function isRequired(options: SchemaValueOptions): boolean {
  return !options.optional && options.default === undefined;
}

function objectSchema(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function valueSchema(where: string, reflected: unknown, options: SchemaValueOptions): JsonSchema {
  const schema: JsonSchema = options.enum
    ? enumSchema(where, options.enum, options.type ?? reflected)
    : typeSchema(where, options.type ?? reflected, options, options.type !== undefined);
  if (options.description) schema.description = options.description;
  if (options.default !== undefined && options.default !== null) schema.default = options.default;
  return { ...schema, ...options.schema };
}

function enumSchema(where: string, values: SchemaValueOptions['enum'], reflected: unknown): JsonSchema {
  const list = Array.isArray(values) ? values : enumObjectValues(values as Record<string, string | number>);
  if (list.length === 0) throw new ToolDefinitionError(where, 'the enum is empty', 'list at least one allowed value');
  const kinds = new Set(list.map((value) => typeof value));
  const type = kinds.size === 1 ? (kinds.has('number') ? (list.every(Number.isInteger) ? 'integer' : 'number') : 'string') : undefined;
  if (reflected === Array) throw new ToolDefinitionError(where, 'enum on an array', 'put the enum on the elements: items: { type: "string", enum: [...] }');
  return { ...(type ? { type } : {}), enum: [...list] };
}

/** A TypeScript numeric enum also maps values back to names; keep only the declared values. */
function enumObjectValues(enumObject: Record<string, string | number>): (string | number)[] {
  const values = Object.values(enumObject);
  const numbers = values.filter((value): value is number => typeof value === 'number');
  return numbers.length
    ? [...numbers, ...values.filter((value) => typeof value === 'string' && !(value in enumObject && typeof enumObject[value] === 'number'))]
    : values;
}

function typeSchema(where: string, ref: unknown, options: SchemaValueOptions, explicit: boolean): JsonSchema {
  switch (ref) {
    case String:
    case 'string':
      return { type: 'string' };
    case Number:
    case 'number':
      return { type: 'number' };
    case 'integer':
      return { type: 'integer' };
    case Boolean:
    case 'boolean':
      return { type: 'boolean' };
    case 'object':
      return { type: 'object' };
    case Object:
      if (explicit) return { type: 'object' };
      throw new ToolDefinitionError(
        where,
        'its type reflects as Object, which is what an interface, a union, `any` and a Record all look like at runtime',
        'declare { type: "object" } for a free-form object, use a class with @SchemaProperty fields, or { enum: [...] } for a union of literals',
      );
    case Array:
      return arraySchema(where, options.items);
    case undefined:
      throw new ToolDefinitionError(
        where,
        'no type metadata was emitted for it',
        'enable emitDecoratorMetadata (SWC: jsc.transform.decoratorMetadata) or set the type option',
      );
  }
  if (typeof ref === 'function' && hasSchemaProperties(ref)) return inputClassSchema(where, ref);
  const name = typeof ref === 'function' ? ref.name : String(ref);
  throw new ToolDefinitionError(
    where,
    `its type ${name} has no JSON Schema mapping`,
    'use string, number, boolean, an array with items, { type: "object" }, or a class whose fields carry @SchemaProperty',
  );
}

function arraySchema(where: string, items: SchemaValueOptions['items']): JsonSchema {
  if (items === undefined) {
    throw new ToolDefinitionError(where, 'it is an array without an element type', 'add items: String (or Number, Boolean, an input class, or a JSON Schema)');
  }
  if (typeof items === 'object') return { type: 'array', items };
  return { type: 'array', items: typeSchema(`${where} items`, items as SchemaTypeRef, {}, true) };
}

function hasSchemaProperties(type: Function): boolean {
  return Reflect.hasMetadata(MCP_SCHEMA_PROPERTIES_METADATA, type);
}

/** The fields of an input class, its base classes' first; each class stores only the fields it declares, and a redeclared field wins. */
function schemaFields(type: Function): SchemaPropertyMetadata[] {
  const chain: Function[] = [];
  for (let current = type; typeof current === 'function' && current !== Function.prototype; current = Object.getPrototypeOf(current)) chain.unshift(current);
  const fields = new Map<string, SchemaPropertyMetadata>();
  for (const owner of chain) {
    for (const field of (Reflect.getOwnMetadata(MCP_SCHEMA_PROPERTIES_METADATA, owner) ?? []) as SchemaPropertyMetadata[]) fields.set(field.key, field);
  }
  return [...fields.values()];
}

/** Input classes being described, to refuse one that contains itself instead of recursing without end. */
const describing = new Set<Function>();

function inputClassSchema(where: string, type: Function): JsonSchema {
  if (describing.has(type)) {
    throw new ToolDefinitionError(where, `the input class ${type.name} contains itself`, 'describe the recursive part with a hand-written inputSchema');
  }
  describing.add(type);
  try {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of schemaFields(type)) {
      const reflected = Reflect.getMetadata('design:type', type.prototype, field.key);
      properties[field.key] = valueSchema(`${where} field ${type.name}.${field.key}`, reflected, field.options);
      if (isRequired(field.options)) required.push(field.key);
    }
    return objectSchema(properties, required);
  } finally {
    describing.delete(type);
  }
}
