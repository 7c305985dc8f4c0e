import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AppExtensions } from '../../src/app.module.js';
import { loadAppConfig, type AppConfig } from '../../src/config.js';
import { createApp } from '../../src/create-app.js';
import { seedEmbeddedDatabase } from './pglite-template.js';
import { ProbeToolsModule } from './probe-tools.module.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './test-database.js';

/** The tools, resources and prompts the MCP conformance suite expects, as a tool directory (`MCP_TOOL_DIRS`). */
export const CONFORMANCE_TOOLS = resolve(import.meta.dirname, 'conformance-tools');

export interface RunningApp {
  app: NestFastifyApplication;
  url: URL;
  /** The app's own data directory. */
  dataDir: string;
  /** Its database on TEST_DATABASE_URL's server; undefined on the embedded database (in `dataDir`/pg). */
  databaseUrl?: string;
  close(): Promise<void>;
}

/**
 * Boots the real application (plus probe tools and any `extensions`) on a random loopback port,
 * with a data directory and a database of its own: an embedded one in that directory, or, when
 * TEST_DATABASE_URL is set, a new database on that server. Closing removes both. `adjust` sets
 * module options that no setting reaches (a time limit a test cannot wait out).
 */
export async function startApp(
  env: Record<string, string> = {},
  extensions: AppExtensions = {},
  adjust: (config: AppConfig) => AppConfig = (config) => config,
): Promise<RunningApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mirobody-test-'));
  let database: TestDatabase | undefined;
  const cleanUp = async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (env.DATABASE_URL === undefined && TEST_DATABASE_URL) database = await createTestDatabase(TEST_DATABASE_URL);
    else if (env.DATABASE_URL === undefined) seedEmbeddedDatabase(dataDir);
    const config = adjust(loadAppConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, DATABASE_URL: database?.url, ...env }));
    const app = await createApp(config, { logger: false, imports: [ProbeToolsModule, ...(extensions.imports ?? [])] });
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    const close = async () => {
      await app.close();
      await cleanUp();
    };
    return { app, url: new URL(`http://127.0.0.1:${address.port}/mcp`), dataDir, databaseUrl: database?.url, close };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

export type Era = '2025-11-25' | '2026-07-28';
export const ERAS: Era[] = ['2025-11-25', '2026-07-28'];

/** An official SDK client speaking the given protocol revision over Streamable HTTP. */
export async function connectClient(url: URL, era: Era, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' }, era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A raw JSON-RPC POST, for what the SDK client would never send. */
export async function postRaw(url: URL, body: string, headers: Record<string, string> = JSON_HEADERS) {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}
