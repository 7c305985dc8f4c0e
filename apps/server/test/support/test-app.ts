import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadAppConfig } from '../../src/config.js';
import { createApp } from '../../src/create-app.js';
import { ProbeToolsModule } from './probe-tools.module.js';

export interface RunningApp {
  app: NestFastifyApplication;
  url: URL;
  close(): Promise<void>;
}

/** Boots the real application (plus probe tools) on a random loopback port. */
export async function startApp(env: Record<string, string> = {}): Promise<RunningApp> {
  const config = loadAppConfig({ HOST: '127.0.0.1', PORT: '0', ...env });
  const app = await createApp(config, { logger: false, imports: [ProbeToolsModule] });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: new URL(`http://127.0.0.1:${address.port}/mcp`), close: () => app.close() };
}

export type Era = '2025-11-25' | '2026-07-28';
export const ERAS: Era[] = ['2025-11-25', '2026-07-28'];

/** An official SDK client speaking the given protocol revision over Streamable HTTP. */
export async function connectClient(url: URL, era: Era, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client(
    { name: 'e2e', version: '1.0.0' },
    era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
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
