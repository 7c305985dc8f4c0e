import ts from 'typescript';
import type { JsonSchema } from '../decorators/metadata.types.js';
import { documentation } from './doc-comment.js';

/** A JSON Schema for a type, or why there is none and what to write instead. */
export type SchemaOrRefusal = { schema: JsonSchema } | { refused: { reason: string; fix: string } };

/** Inputs are closed (an unknown field is refused); outputs stay open, since a value may carry more than its type names. */
export type SchemaUse = 'input' | 'output';

const refuse = (reason: string, fix: string): SchemaOrRefusal => ({ refused: { reason, fix } });

const NAME_THE_TYPE = 'name the type: string, number, boolean, a literal union, an interface, or an array of one of them';

/**
 * The rules of a tool's TypeScript types to JSON Schema (the README's rules table): primitives;
 * literal unions and enums to `enum`; `T | null` nullable; `T[]` with `items`; interfaces, type
 * aliases and classes to objects whose `required` follows `?`; `Record<string, T>` to
 * `additionalProperties`. Anything else is refused with the reason and the fix, never read as a
 * string.
 */
export function typeToSchema(checker: ts.TypeChecker, type: ts.Type, use: SchemaUse, enclosing: ReadonlySet<ts.Type> = new Set()): SchemaOrRefusal {
  const flags = type.flags;
  if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown))
    return refuse(`its type is ${checker.typeToString(type)}, which says nothing of what to send`, NAME_THE_TYPE);
  if (flags & ts.TypeFlags.TypeParameter) return refuse(`its type ${checker.typeToString(type)} is a type parameter the plugin cannot resolve`, NAME_THE_TYPE);
  if (flags & (ts.TypeFlags.BigIntLike | ts.TypeFlags.ESSymbolLike | ts.TypeFlags.Void | ts.TypeFlags.Never | ts.TypeFlags.Undefined))
    return refuse(`its type ${checker.typeToString(type)} has no JSON form`, NAME_THE_TYPE);
  if (type.isUnion()) return unionSchema(checker, type, use, enclosing);
  if (flags & ts.TypeFlags.StringLiteral) return { schema: { type: 'string', enum: [(type as ts.StringLiteralType).value] } };
  if (flags & ts.TypeFlags.NumberLiteral) return { schema: literalNumbers([(type as ts.NumberLiteralType).value]) };
  if (flags & ts.TypeFlags.BooleanLiteral) return { schema: { type: 'boolean', enum: [checker.typeToString(type) === 'true'] } };
  if (flags & ts.TypeFlags.StringLike) return { schema: { type: 'string' } };
  if (flags & ts.TypeFlags.NumberLike) return { schema: { type: 'number' } };
  if (flags & ts.TypeFlags.BooleanLike) return { schema: { type: 'boolean' } };
  if (flags & ts.TypeFlags.Null) return { schema: { type: 'null' } };
  if (checker.isArrayType(type) || isReadonlyArray(type)) {
    const [element] = checker.getTypeArguments(type as ts.TypeReference);
    const items = typeToSchema(checker, element!, use, enclosing);
    return 'refused' in items ? refuse(`its elements: ${items.refused.reason}`, items.refused.fix) : { schema: { type: 'array', items: items.schema } };
  }
  if (checker.isTupleType(type))
    return refuse(`its type ${checker.typeToString(type)} is a tuple`, 'use an array of one element type, or an object with named fields');
  if (type.getCallSignatures().length) return refuse(`its type ${checker.typeToString(type)} is a function`, NAME_THE_TYPE);
  if (type.getSymbol()?.getName() === 'Date') {
    return use === 'output'
      ? { schema: { type: 'string', format: 'date-time' } }
      : refuse('its type is Date, which a model sends as text', 'take a string with schema: { format: "date-time" } and parse it with new Date(text)');
  }
  if (flags & ts.TypeFlags.Object) return objectSchema(checker, type, use, enclosing);
  if (flags & ts.TypeFlags.NonPrimitive) return { schema: { type: 'object' } };
  return refuse(`its type ${checker.typeToString(type)} has no JSON Schema mapping`, NAME_THE_TYPE);
}

function isReadonlyArray(type: ts.Type): boolean {
  return type.getSymbol()?.getName() === 'ReadonlyArray';
}

function literalNumbers(values: number[]): JsonSchema {
  return { type: values.every(Number.isInteger) ? 'integer' : 'number', enum: values };
}

/** `T | null`, `T | undefined` (optional), literal unions, enums; any other union is refused. */
function unionSchema(checker: ts.TypeChecker, type: ts.UnionType, use: SchemaUse, enclosing: ReadonlySet<ts.Type>): SchemaOrRefusal {
  const members = type.types.filter((member) => !(member.flags & ts.TypeFlags.Undefined));
  const nullable = members.some((member) => member.flags & ts.TypeFlags.Null);
  const rest = members.filter((member) => !(member.flags & ts.TypeFlags.Null));
  let inner: SchemaOrRefusal;
  if (rest.length === 0) return { schema: { type: 'null' } };
  if (rest.every((member) => member.flags & ts.TypeFlags.BooleanLiteral)) {
    inner = { schema: { type: 'boolean' } };
  } else if (rest.every((member) => member.flags & ts.TypeFlags.StringLiteral)) {
    inner = { schema: { type: 'string', enum: rest.map((member) => (member as ts.StringLiteralType).value) } };
  } else if (rest.every((member) => member.flags & ts.TypeFlags.NumberLiteral)) {
    inner = { schema: literalNumbers(rest.map((member) => (member as ts.NumberLiteralType).value)) };
  } else if (rest.length === 1) {
    inner = typeToSchema(checker, rest[0]!, use, enclosing);
  } else {
    return refuse(
      `its type ${checker.typeToString(type)} is a union of different kinds, which JSON Schema clients handle unevenly`,
      "use a literal union ('a' | 'b'), an enum, or one object type with optional fields",
    );
  }
  return nullable && 'schema' in inner ? { schema: withNull(inner.schema) } : inner;
}

function withNull(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  const nullable: JsonSchema = typeof type === 'string' ? { ...schema, type: [type, 'null'] } : { anyOf: [schema, { type: 'null' }] };
  return Array.isArray(schema.enum) ? { ...nullable, enum: [...schema.enum, null] } : nullable;
}

/** An interface, a type alias of an object, a class (its fields, not its methods), or a `Record`. */
function objectSchema(checker: ts.TypeChecker, type: ts.Type, use: SchemaUse, enclosing: ReadonlySet<ts.Type>): SchemaOrRefusal {
  const name = checker.typeToString(type);
  if (enclosing.has(type)) return refuse(`its type ${name} contains itself`, 'describe the recursive part with a hand-written inputSchema');
  const inside = new Set(enclosing).add(type);
  const fields = checker.getPropertiesOfType(type).filter((property) => !(property.flags & ts.SymbolFlags.Method));
  const indexType = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String)?.type;
  if (indexType && fields.length === 0) {
    if (indexType.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { schema: { type: 'object' } };
    const values = typeToSchema(checker, indexType, use, inside);
    return 'refused' in values
      ? refuse(`its values: ${values.refused.reason}`, values.refused.fix)
      : { schema: { type: 'object', additionalProperties: values.schema } };
  }
  if (indexType) return refuse(`its type ${name} mixes named fields with an index signature`, 'use either named fields or Record<string, T>');
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of fields) {
    const declaration = field.valueDeclaration ?? field.declarations?.[0];
    const fieldType = declaration ? checker.getTypeOfSymbolAtLocation(field, declaration) : checker.getDeclaredTypeOfSymbol(field);
    const optional = (field.flags & ts.SymbolFlags.Optional) !== 0;
    // An optional field's `| undefined` is dropped by the union rule: it is left out of `required` instead.
    const schema = typeToSchema(checker, fieldType, use, inside);
    if ('refused' in schema) return refuse(`its field ${name}.${field.getName()}: ${schema.refused.reason}`, schema.refused.fix);
    const description = documentation(field.getDocumentationComment(checker));
    properties[field.getName()] = description ? { ...schema.schema, description } : schema.schema;
    if (!optional) required.push(field.getName());
  }
  return {
    schema: { type: 'object', properties, ...(required.length ? { required } : {}), ...(use === 'input' ? { additionalProperties: false } : {}) },
  };
}
