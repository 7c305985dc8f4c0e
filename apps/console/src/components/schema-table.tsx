import { TableBox } from './table-box';

/** A JSON Schema as a person reads it: each property's name, type, whether it is required, and what it is for. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
}

export function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map(typeOf).join(' | ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  if (type === 'array' && schema.items) return `${typeOf(schema.items)}[]`;
  return schema.format ? `${type} (${schema.format})` : type;
}

function limits(schema: JsonSchema): string[] {
  const notes: string[] = [];
  if (schema.minimum !== undefined) notes.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) notes.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined) notes.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) notes.push(`at most ${schema.maxLength} characters`);
  if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`);
  return notes;
}

export function SchemaTable({ schema, caption }: { schema: JsonSchema; caption: string }) {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return <p className="muted">{caption}: none.</p>;
  const required = new Set(schema.required ?? []);
  return (
    <TableBox label={caption}>
      <table className="schema-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {properties.map(([name, property]) => (
            <tr key={name}>
              <td>
                <code>{name}</code> {required.has(name) ? <span className="badge">required</span> : <span className="muted">optional</span>}
              </td>
              <td>
                <code>{typeOf(property)}</code>
              </td>
              <td className="wrap">
                {property.description ?? ''}
                {limits(property).length > 0 && <div className="muted">{limits(property).join(', ')}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}

/** Arguments to start from: each required property's default, first allowed value, or an empty value of its type. */
export function exampleArguments(schema: JsonSchema): Record<string, unknown> {
  const example: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const property = schema.properties?.[name] ?? {};
    example[name] = property.default ?? property.enum?.[0] ?? property.const ?? emptyOf(property);
  }
  return example;
}

function emptyOf(schema: JsonSchema): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'number' || type === 'integer') return schema.minimum ?? 0;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'object') return exampleArguments(schema);
  return '';
}
