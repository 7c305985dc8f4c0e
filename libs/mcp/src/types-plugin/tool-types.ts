import type { JsonSchema } from '../decorators/metadata.types.js';

/**
 * What the types plugin read from a tool method's TypeScript signature and JSDoc: plain data, so it
 * can be written into a class, a metadata file or a transpiled tool file alike. The explorer reads
 * it first and the decorators second.
 */
export interface ToolTypes {
  /** The method's JSDoc, without its tags. */
  description?: string;
  /** One per declared parameter, in order. */
  parameters: ParameterTypes[];
  /** `T` of a `ToolResult<T>` or `Promise<T>` return type, when it is an object type. */
  output?: JsonSchema;
}

export interface ParameterTypes {
  name: string;
  /** Filled by the server (`@CurrentUser()`, `@ToolContext()`): no schema is read for it. */
  injected?: true;
  /** `@param name …` of the method's JSDoc, or a doc comment in front of the parameter. */
  description?: string;
  /** `name?: T` or `name = value`. */
  optional: boolean;
  /** The default value, when it is a literal. */
  default?: string | number | boolean | null;
  schema?: JsonSchema;
  /** Why the type has no JSON Schema, and what to write instead. */
  refused?: { reason: string; fix: string };
}

/** A class's tool methods by name. */
export type ClassToolTypes = Record<string, ToolTypes>;

/**
 * The static method the plugin gives a tool class, returning its `ClassToolTypes` (a method rather
 * than data, like `@nestjs/swagger`'s `_OPENAPI_METADATA_FACTORY`, so the object is built only when read).
 */
export const TOOL_TYPES_FACTORY = '_MCP_TOOL_TYPES_FACTORY';

/** The types the plugin recorded for `type`'s method `methodName`, if any. */
export function recordedToolTypes(type: Function, methodName: string): ToolTypes | undefined {
  const factory = Object.hasOwn(type, TOOL_TYPES_FACTORY) ? (type as unknown as Record<string, () => ClassToolTypes>)[TOOL_TYPES_FACTORY] : undefined;
  return factory?.()[methodName];
}
