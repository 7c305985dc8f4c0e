import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, signHs256, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { eventually } from './support/files.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';
import { seedEmbeddedDatabase } from './support/pglite-template.js';
import { startProcess, stopGroup, type Started } from './support/processes.js';
import { copyProject } from './support/project-copy.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/test-database.js';

/**
 * Traces as a tracing backend receives them: the compiled server runs in a process of its own
 * (the OpenTelemetry SDK is process-wide) with an OTLP endpoint pointing at a receiver this test
 * runs, and is driven over HTTP by the official MCP client and plain fetch.
 */
const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;
const ERROR = 2;

let project: string;
let database: TestDatabase | undefined;
let server: Started;
let receiver: OtlpReceiver;
let mcpUrl: URL;
let alice: string;

const traceparent = () => {
  const [traceId, spanId] = [randomBytes(16).toString('hex'), randomBytes(8).toString('hex')];
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
};

/** The spans of one trace once `expected` of them (by name) have arrived. */
async function traceOf(traceId: string, expected: string[]): Promise<ReceivedSpan[]> {
  await eventually(() => {
    const names = receiver
      .spans()
      .filter((span) => span.traceId === traceId)
      .map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining(expected));
  }, 10_000);
  return receiver.spans().filter((span) => span.traceId === traceId);
}

const one = (spans: ReceivedSpan[], name: string) => {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0]!;
};
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId);

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  project = copyProject('mirobody-traces-', { build: true });
  if (TEST_DATABASE_URL) database = await createTestDatabase(TEST_DATABASE_URL);
  else seedEmbeddedDatabase(join(project, 'data'));
  server = startProcess(project, process.execPath, ['dist/apps/server/src/main.js'], {
    DATA_DIR: join(project, 'data'),
    JWT_SECRET: TEST_JWT_SECRET,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    ...(database ? { DATABASE_URL: database.url } : {}),
  });
  mcpUrl = new URL(await server.announcement(1));
  alice = await signHs256(TEST_JWT_SECRET, { sub: 'alice' });
}, 120_000);

afterAll(async () => {
  if (server) await stopGroup(server, 'SIGKILL');
  await receiver?.close();
  await database?.drop();
  rmSync(project, { recursive: true, force: true });
});

describe('traces (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('make one tree per request: HTTP under the traceparent header, then MCP, the tool call and its queries', async () => {
    const parent = traceparent();
    await withClient(mcpUrl, '2025-11-25', { ...bearer(alice), traceparent: parent.header }, async (client) => {
      expect((await client.callTool({ name: 'remember', arguments: { text: 'Alice walks every morning' } })).isError).toBeFalsy();
    });
    const spans = await traceOf(parent.traceId, ['tools/call remember', 'execute_tool remember']);
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['mirobody']));

    const mcp = one(spans, 'tools/call remember');
    const http = spans.find((span) => span.spanId === mcp.parentSpanId)!;
    expect(http).toMatchObject({ name: 'POST /mcp', kind: SERVER, parentSpanId: parent.spanId });
    expect(http.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/mcp', 'http.response.status_code': 200 });
    expect(mcp.kind).toBe(SERVER);
    expect(mcp.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'remember',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'client.address': '127.0.0.1',
    });
    expect(mcp.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(mcp.attributes['mcp.session.id']).toEqual(expect.any(String));
    expect(mcp.attributes).not.toHaveProperty('error.type');

    const tool = one(spans, 'execute_tool remember');
    expect(tool).toMatchObject({ kind: INTERNAL, parentSpanId: mcp.spanId, attributes: { 'gen_ai.tool.name': 'remember' } });
    const queries = childrenOf(spans, tool);
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) expect(query).toMatchObject({ kind: CLIENT, attributes: { 'db.system.name': 'postgresql' } });
    expect(queries.map((query) => query.attributes['db.operation.name'])).toEqual(expect.arrayContaining(['START', 'UPDATE', 'COMMIT']));
    // The memory is stored by one WITH statement (its operation `_OTHER`), whose text says what it writes.
    expect(queries.some((query) => String(query.attributes['db.query.text']).includes('INSERT INTO memories'))).toBe(true);
    // Statements carry placeholders, never what the user stored.
    expect(JSON.stringify(spans)).not.toContain('walks every morning');

    // The session's other requests (initialize, the initialized notification) are in the trace too, each under its own HTTP span.
    expect(spans.filter((span) => span.name === 'initialize')).toHaveLength(1);
  });

  it('put an MCP request under the traceparent of its _meta, linked to the HTTP request that carried it', async () => {
    const fromMeta = traceparent();
    await withClient(mcpUrl, '2026-07-28', bearer(alice), async (client) => {
      await client.callTool({ name: 'echo', arguments: { text: 'hi' }, _meta: { traceparent: fromMeta.header } });
    });
    const spans = await traceOf(fromMeta.traceId, ['tools/call echo', 'execute_tool echo']);
    const mcp = one(spans, 'tools/call echo');
    expect(mcp.parentSpanId).toBe(fromMeta.spanId);
    expect(mcp.attributes['mcp.protocol.version']).toBe('2026-07-28');
    expect(mcp.links).toHaveLength(1);
    const http = receiver.spans().find((span) => span.spanId === mcp.links[0]!.spanId)!;
    expect(http).toMatchObject({ name: 'POST /mcp', kind: SERVER, traceId: mcp.links[0]!.traceId });
    expect(http.traceId).not.toBe(fromMeta.traceId);
  });

  it('mark a tool error and a refused call as errors, with their error.type', async () => {
    const parent = traceparent();
    await withClient(mcpUrl, '2025-11-25', { ...bearer(alice), traceparent: parent.header }, async (client) => {
      expect((await client.callTool({ name: 'echo', arguments: { text: 42 } })).isError).toBe(true);
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no_such_tool/);
    });
    const spans = await traceOf(parent.traceId, ['tools/call echo', 'execute_tool echo', 'tools/call']);
    expect(one(spans, 'tools/call echo')).toMatchObject({ attributes: { 'error.type': 'tool_error' }, status: { code: ERROR } });
    expect(one(spans, 'execute_tool echo').attributes['error.type']).toBe('tool_error');
    // An unknown tool gives the span no name of the client's making.
    expect(one(spans, 'tools/call')).toMatchObject({
      attributes: { 'gen_ai.tool.name': '_OTHER', 'error.type': '-32602', 'rpc.response.status_code': '-32602' },
      status: { code: ERROR },
    });
  });

  it('time storage calls and queries under a REST request, and never put a secret URL in a span', async () => {
    const upload = traceparent();
    const form = new FormData();
    form.append('file', new Blob(['a note']), 'note.txt');
    const uploaded = await fetch(new URL('/api/files', mcpUrl), { method: 'POST', body: form, headers: { ...bearer(alice), traceparent: upload.header } });
    expect(uploaded.status).toBe(201);
    const spans = await traceOf(upload.traceId, ['POST /api/files', 'storage put']);
    const http = one(spans, 'POST /api/files');
    expect(one(spans, 'storage put')).toMatchObject({
      kind: CLIENT,
      parentSpanId: http.spanId,
      attributes: { 'mirobody.storage.backend': 'local', 'mirobody.storage.operation': 'put' },
    });
    expect(childrenOf(spans, http).some((span) => span.attributes['db.operation.name'] === 'INSERT')).toBe(true);

    const created = await fetch(new URL('/api/mcp-secrets', mcpUrl), {
      method: 'POST',
      headers: { ...bearer(alice), 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'traces' }),
    });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    const viaSecret = traceparent();
    const listed = await fetch(new URL(`/mcp/${secret}`, mcpUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', traceparent: viaSecret.header },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    const secretSpans = await traceOf(viaSecret.traceId, ['POST /mcp/:secret', 'tools/list']);
    expect(JSON.stringify(secretSpans)).not.toContain(secret);
  });

  it('name the trace in the access line of each request', async () => {
    const parent = traceparent();
    const response = await fetch(new URL('/health/live', mcpUrl), { headers: { traceparent: parent.header } });
    expect(response.status).toBe(200);
    await eventually(() => {
      const line = server
        .output()
        .split('\n')
        .filter((text) => text.includes('"request completed"') && text.includes('/health/live'))
        .map((text) => JSON.parse(text) as { traceId?: string })
        .at(-1);
      expect(line?.traceId).toBe(parent.traceId);
    });
  });

  it('are sent before the process exits on SIGTERM, however long the batch delay', async () => {
    const dataDir = join(project, 'data-shutdown');
    const ownDatabase = TEST_DATABASE_URL ? await createTestDatabase(TEST_DATABASE_URL) : undefined;
    if (!ownDatabase) seedEmbeddedDatabase(dataDir);
    const batching = startProcess(project, process.execPath, ['dist/apps/server/src/main.js'], {
      DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      ...(ownDatabase ? { DATABASE_URL: ownDatabase.url } : {}),
    });
    try {
      const parent = traceparent();
      const url = new URL(await batching.announcement(1));
      expect((await fetch(new URL('/health/live', url), { headers: { traceparent: parent.header } })).status).toBe(200);
      expect(receiver.spans().some((span) => span.traceId === parent.traceId)).toBe(false);
      expect(await stopGroup(batching, 'SIGTERM')).toBe(0);
      expect(
        receiver
          .spans()
          .filter((span) => span.traceId === parent.traceId)
          .map((span) => span.name),
      ).toEqual(['GET /health/live']);
    } finally {
      await stopGroup(batching, 'SIGKILL');
      await ownDatabase?.drop();
    }
  }, 60_000);
});
