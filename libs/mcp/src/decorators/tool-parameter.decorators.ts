import { MCP_ARGS_METADATA, MCP_SCHEMA_PROPERTIES_METADATA } from './constants.js';
import { appendToMethodList } from './create-metadata-decorator.js';
import type { SchemaPropertyMetadata, SchemaValueOptions, ToolParameterMetadata } from './metadata.types.js';

function recordParameter(entry: Omit<ToolParameterMetadata, 'index'>): ParameterDecorator {
  return (target, propertyKey, index) => {
    if (propertyKey === undefined) return;
    appendToMethodList<ToolParameterMetadata>(MCP_ARGS_METADATA, target, propertyKey, { ...entry, index });
  };
}

/** A tool argument the model supplies, published in the input schema under `name`. */
export const Arg = (name: string, options: SchemaValueOptions = {}): ParameterDecorator => recordParameter({ kind: 'arg', name, options });

/** The authenticated caller (`UserInfo`), filled by the server; never part of the schema. */
export const CurrentUser = (): ParameterDecorator => recordParameter({ kind: 'caller', options: {} });

/** The per-call `McpToolContext`: progress, logging, cancellation, input requests. */
export const ToolContext = (): ParameterDecorator => recordParameter({ kind: 'context', options: {} });

/** A property of an input class used as a nested object argument. */
export const SchemaProperty =
  (options: SchemaValueOptions = {}): PropertyDecorator =>
  (target, propertyKey) => {
    const properties: SchemaPropertyMetadata[] = Reflect.getOwnMetadata(MCP_SCHEMA_PROPERTIES_METADATA, target.constructor) ?? [];
    Reflect.defineMetadata(MCP_SCHEMA_PROPERTIES_METADATA, [...properties, { key: String(propertyKey), options }], target.constructor);
  };
