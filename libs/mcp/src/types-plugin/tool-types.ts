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

/** The section of a plugin metadata file (Nest CLI's `metadata.ts`) that holds tool types, beside other plugins' sections. */
export const TOOL_TYPES_SECTION = 'mcpToolTypes';

/** A module of tool classes, and the tool types of its exported classes by class name. */
type ToolTypesEntry = [module: Promise<Record<string, unknown>>, classes: Record<string, ClassToolTypes>];

/** The default export of a plugin metadata file: each plugin's sections, keyed by the plugin's name in nest-cli.json. */
export type PluginMetadata = () => Promise<Record<string, Record<string, unknown[]> | undefined>>;

/** Gives `type` the tool types the plugin read for its methods, as the `before` transformer and tool directories do. */
function attachToolTypes(type: Function, classes: ClassToolTypes): void {
  Object.defineProperty(type, TOOL_TYPES_FACTORY, { value: () => classes, configurable: true });
}

/**
 * Attaches the tool types of a plugin metadata file to the classes it names (the app calls this
 * before Nest explores its providers, as `SwaggerModule.loadPluginMetadata` does for models).
 * Returns how many classes got types.
 */
export async function loadToolTypes(metadata: PluginMetadata): Promise<number> {
  let attached = 0;
  for (const sections of Object.values(await metadata())) {
    for (const [module, classes] of (sections?.[TOOL_TYPES_SECTION] ?? []) as ToolTypesEntry[]) {
      const exports = await module;
      for (const [name, types] of Object.entries(classes)) {
        const type = exports[name];
        if (typeof type !== 'function') throw new Error(`The tool types name the class ${name}, which its module does not export: build again (npm run build)`);
        attachToolTypes(type, types);
        attached++;
      }
    }
  }
  return attached;
}
