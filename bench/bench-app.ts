/**
 * A benchmark server: the real app, as `apps/server/src/create-app.ts` builds it with the
 * production module (auth, the database, logging, the built-in tools), plus BENCH_TOOLS generated
 * tools (bench-app-module.ts). `bench/run.mjs` starts it with BENCH_TOOLS=5 and BENCH_TOOLS=200 to
 * compare `tools/list` costs; the code is the same, only the count differs. Configuration comes
 * from the environment as for `main.ts` (run.mjs switches rate limits off for a throughput run).
 *
 *   BENCH_TOOLS=200 PORT=18081 RATE_LIMIT_REQUESTS=0 RATE_LIMIT_ANONYMOUS_REQUESTS=0 node dist/bench/bench-app.js
 */
import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadAppConfig } from '../apps/server/src/config.js';
import { createApp } from '../apps/server/src/create-app.js';
import { BenchToolsModule } from './bench-app-module.js';

export async function createBenchApp(count: number, env: Record<string, string | undefined> = process.env): Promise<NestFastifyApplication> {
  const app = await createApp(loadAppConfig(env), { imports: [BenchToolsModule.register(count)] });
  app.enableShutdownHooks();
  return app;
}

const count = Number(process.env.BENCH_TOOLS ?? 5);
if (!Number.isInteger(count) || count < 1) throw new Error(`BENCH_TOOLS must be a positive whole number, got "${process.env.BENCH_TOOLS}"`);
const app = await createBenchApp(count);
const config = loadAppConfig(process.env);
await app.listen(config.PORT, config.HOST);
console.log(`bench app with ${count} generated tools listening on ${await app.getUrl()}/mcp`);
