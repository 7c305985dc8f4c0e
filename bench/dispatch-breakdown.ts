/**
 * Where one `tools/call` spends its time inside the process, without HTTP: `bench/run.mjs` prints
 * this after the load figures, so the share of each layer is measured in the same run.
 *
 *   registry      our part: ajv validation, the tool method, result mapping (McpRegistry.callTool)
 *   sdk dispatch  the same call delivered as a JSON-RPC message to the shared SDK `Server` through
 *                 our SharedServerTransport, up to the serialized answer: the SDK's protocol layer
 *                 (message classification, request and result schemas, context, cancellation) plus ours
 *   classify      the SDK's classifyInboundRequest, run once per POST to tell 2025 from 2026 traffic
 *   json          JSON.parse of the request and JSON.stringify of the answer: what bare Fastify does
 *
 *   node dist/bench/dispatch-breakdown.js
 */
import 'reflect-metadata';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyInboundRequest, type JSONRPCRequest, type ServerContext } from '@modelcontextprotocol/server';
import { McpRegistry } from '@app/mcp';
import { McpServerFactory } from '../libs/mcp/src/server/mcp-server.factory.js';
import { SharedServerTransport } from '../libs/mcp/src/http/shared-server-transport.js';
import { loadAppConfig } from '../apps/server/src/config.js';
import { createApp } from '../apps/server/src/create-app.js';
import { benchToolName, BenchToolsModule } from './bench-app-module.js';

const ITERATIONS = Number(process.env.BREAKDOWN_ITERATIONS ?? 20_000);
const WARMUP = Math.ceil(ITERATIONS / 4);

const name = benchToolName(0);
const args = { query: 'fasting glucose', limit: 5 };
const request: JSONRPCRequest = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
const requestText = JSON.stringify(request);

/** The part of a ServerResponse the shared transport writes to; resolves with the body once it ends. */
function sink(): { response: ServerResponse; body: Promise<string> } {
  let body = '';
  let finish!: (text: string) => void;
  const done = new Promise<string>((resolve) => (finish = resolve));
  const response = {
    writeHead: () => response,
    write: (chunk: string | Buffer) => ((body += chunk), true),
    end: (chunk?: string | Buffer) => finish(body + (chunk ?? '')),
    once: () => response,
  };
  return { response: response as unknown as ServerResponse, body: done };
}

async function time(label: string, run: () => unknown): Promise<{ label: string; micros: number }> {
  for (let i = 0; i < WARMUP; i++) await run();
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) await run();
  return { label, micros: Number(process.hrtime.bigint() - started) / 1000 / ITERATIONS };
}

// The real app (its own throw-away embedded database), as bench-app.ts serves it.
const dataDir = mkdtempSync(join(tmpdir(), 'mcp-breakdown-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
const context = await createApp(loadAppConfig({ ...process.env, DATA_DIR: dataDir }), { logger: false, imports: [BenchToolsModule.register(5)] });
await context.init();
const registry = context.get(McpRegistry);
const server = context.get(McpServerFactory).create();
const transport = new SharedServerTransport();
await server.connect(transport);

const check = sink();
transport.dispatch(request, check.response, undefined);
const answer = JSON.parse(await check.body);
if (answer.result?.structuredContent?.tool !== name) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);

const rows = [
  await time('registry', () => registry.callTool(name, args, {} as ServerContext)),
  await time('sdk dispatch', () => {
    const { response, body } = sink();
    transport.dispatch(request, response, undefined);
    return body;
  }),
  await time('classify', () => classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: undefined, mcpMethodHeader: undefined, body: request })),
  await time('json', () => JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(requestText).id, result: answer.result })),
];
await server.close();
await context.close();

const [registryRow, dispatchRow] = rows;
console.log(`In-process cost of one tools/call (${ITERATIONS} calls each, µs per call):`);
for (const row of rows) console.log(`  ${row.label.padEnd(13)} ${row.micros.toFixed(1).padStart(6)}`);
console.log(`  the SDK's protocol layer and our transport: ${(dispatchRow!.micros - registryRow!.micros).toFixed(1)} µs of ${dispatchRow!.micros.toFixed(1)}`);
