/**
 * A benchmark server: the MCP endpoint exactly as `apps/server/src/create-app.ts` boots it, but with
 * BENCH_TOOLS generated tools (bench-app-module.ts) instead of the built-in ones. `bench/run.mjs`
 * starts it with BENCH_TOOLS=5 and BENCH_TOOLS=200 to compare `tools/list` costs; the code is the
 * same, only the count differs.
 *
 *   BENCH_TOOLS=200 PORT=18081 node dist/bench/bench-app.js
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerMcpBodyParsers } from '@app/mcp';
import { BenchAppModule } from './bench-app-module.js';

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
