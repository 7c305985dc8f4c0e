/**
 * The benchmark's tools: `count` generated `*Service` providers, one tool each with five arguments
 * and realistic schemas, added to the real app (next to its built-in tools) by `bench-app.ts`.
 */
import { Injectable, Module, type DynamicModule, type Type } from '@nestjs/common';
import { Arg, McpTool, ok, type ToolResult } from '@app/mcp';

const UNITS = ['mg/dL', 'mmol/L', 'bpm', 'kg', 'steps'] as const;

/** The name the `index`-th generated tool is published under. */
export function benchToolName(index: number): string {
  return `search_records_${String(index).padStart(3, '0')}`;
}

/**
 * One provider class `BenchTool<NNN>Service` with one tool method, decorated programmatically
 * the way the TypeScript compiler would apply `@McpTool` and `@Arg`.
 */
export function generateToolService(index: number): Type<unknown> {
  const suffix = String(index).padStart(3, '0');
  const className = `BenchTool${suffix}Service`;
  const methodName = `searchRecords${suffix}`;
  const toolName = benchToolName(index);
  const holder = { [className]: class {} };
  const toolClass = holder[className];
  const prototype = toolClass.prototype as Record<string, unknown>;

  function search(query: string, limit: number, unit: string, tags: string[] | undefined, includeArchived: boolean): ToolResult<unknown> {
    return ok({ tool: toolName, query, limit, unit, tags: tags ?? [], includeArchived });
  }
  Object.defineProperty(prototype, methodName, { value: search, writable: true, configurable: true, enumerable: false });
  Reflect.defineMetadata('design:paramtypes', [String, Number, String, Array, Boolean], prototype, methodName);
  Reflect.defineMetadata('design:returntype', Object, prototype, methodName);

  Arg('query', {
    description: `Free-text query matched against record titles and notes in collection ${suffix}, e.g. "fasting glucose"`,
    schema: { minLength: 1, maxLength: 200 },
  })(prototype, methodName, 0);
  Arg('limit', { type: 'integer', description: 'Maximum number of records to return', default: 20, schema: { minimum: 1, maximum: 100 } })(
    prototype,
    methodName,
    1,
  );
  Arg('unit', { description: 'Unit the values are converted to before they are returned', enum: UNITS, default: UNITS[index % UNITS.length] })(
    prototype,
    methodName,
    2,
  );
  Arg('tags', { description: 'Only records carrying all of these tags', items: String, optional: true, schema: { maxItems: 10, uniqueItems: true } })(
    prototype,
    methodName,
    3,
  );
  Arg('include_archived', { description: 'Also search records that were archived', default: false })(prototype, methodName, 4);
  McpTool({
    name: toolName,
    description: `Search the records of collection ${suffix} by text, tags and unit; returns at most "limit" matches, newest first.`,
    annotations: { title: `Search collection ${suffix}`, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })(prototype, methodName, Object.getOwnPropertyDescriptor(prototype, methodName)!);
  Injectable()(toolClass);
  return toolClass;
}

@Module({})
export class BenchToolsModule {
  static register(count: number): DynamicModule {
    return { module: BenchToolsModule, providers: Array.from({ length: count }, (_, index) => generateToolService(index)) };
  }
}
