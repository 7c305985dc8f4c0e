/**
 * A benchmark server: the MCP endpoint exactly as `apps/server/src/create-app.ts` boots it, but with
 * BENCH_TOOLS generated `*Service` providers (one tool each, five arguments with realistic schemas)
 * instead of the built-in tools. `bench/run.mjs` starts it with BENCH_TOOLS=5 and BENCH_TOOLS=200
 * to compare `tools/list` costs; the code is the same, only the count differs.
 *
 *   BENCH_TOOLS=200 PORT=18081 node dist/bench/bench-app.js
 */
import 'reflect-metadata';
import { Injectable, Module, type DynamicModule, type Type } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Arg, McpModule, McpTool, ok, registerMcpBodyParsers, type ToolResult } from '@app/mcp';

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

/** The same imports as `AppModule`, with the generated tools in place of `ToolsModule`. */
@Module({})
export class BenchAppModule {
  static register(count: number): DynamicModule {
    return {
      module: BenchAppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => ({ BENCH_TOOLS: count })] }),
        McpModule.forRoot({ serverInfo: { name: 'mirobody-bench', version: '0.0.0' } }),
        BenchToolsModule.register(count),
      ],
    };
  }
}

/** Boots like `createApp` in apps/server/src/create-app.ts. */
export async function createBenchApp(count: number): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter();
  registerMcpBodyParsers(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(BenchAppModule.register(count), adapter, {
    bodyParser: false,
    logger: ['error', 'warn'],
  });
  app.enableShutdownHooks();
  return app;
}

const count = Number(process.env.BENCH_TOOLS ?? 5);
if (!Number.isInteger(count) || count < 1) throw new Error(`BENCH_TOOLS must be a positive whole number, got "${process.env.BENCH_TOOLS}"`);
const app = await createBenchApp(count);
await app.listen(Number(process.env.PORT ?? 18081), process.env.HOST ?? '127.0.0.1');
console.log(`bench app with ${count} tools listening on ${await app.getUrl()}/mcp`);
