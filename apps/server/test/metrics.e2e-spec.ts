import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { MetricsPort } from '../src/metrics.js';
import { bearer, cliToken, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { eventually, uploadFile } from './support/files.js';
import { jsonCall } from './support/json-call.js';
import { partyOf } from './support/parties.js';
import { parsePrometheus, sumOf, valueOf, type Scrape } from './support/prometheus.js';
import { TaskToolsModule } from './support/task-tools.module.js';
import { tasksClient } from './support/tasks-wire.js';
import { connectClient, ERAS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

const METRICS_TOKEN = 'a-metrics-token-of-at-least-32-characters';
const ENV = { JWT_SECRET: TEST_JWT_SECRET, METRICS_TOKEN, RATE_LIMIT_ANONYMOUS_REQUESTS: '40' };
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

async function scrape(app: RunningApp, headers: Record<string, string> = bearer(METRICS_TOKEN)): Promise<Scrape> {
  const response = await fetch(new URL('/metrics', app.url), { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(PROMETHEUS_TEXT);
  return parsePrometheus(await response.text());
}

const operation = (labels: Record<string, string>) => ['mcp_server_operation_duration_seconds_count', labels] as const;

/** A port nothing listens on at the moment of asking. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('GET /metrics behind METRICS_TOKEN', () => {
  let running: RunningApp;
  let alice: string;
  let metricsUrl: URL;

  beforeAll(async () => {
    running = await startApp(ENV, { imports: [TaskToolsModule] });
    alice = await cliToken(running, ENV, '--sub', 'alice');
    metricsUrl = new URL('/metrics', running.url);
  });

  afterAll(async () => {
    await running.close();
  });

  it('answers only the metrics token: not anonymous callers, not a user of the server, not a wrong token', async () => {
    for (const headers of [{}, bearer(alice), bearer(`${METRICS_TOKEN}x`), { authorization: METRICS_TOKEN }, { authorization: `Basic ${METRICS_TOKEN}` }]) {
      const response = await fetch(metricsUrl, { headers });
      expect([response.status, response.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="metrics"']);
      expect(await response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'GET /metrics takes the METRICS_TOKEN as a bearer token' });
    }
    // The scheme is case-insensitive (RFC 9110); the token is not.
    expect((await fetch(metricsUrl, { headers: { authorization: `bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    expect((await fetch(metricsUrl, { headers: { authorization: `Bearer ${METRICS_TOKEN.toUpperCase()}` } })).status).toBe(401);
    expect((await fetch(metricsUrl, { method: 'POST', headers: bearer(METRICS_TOKEN) })).status).toBe(404);
    expect((await fetch(new URL('/metrics?x=1', running.url), { headers: bearer(METRICS_TOKEN) })).status).toBe(200);
  });

  it('parses as Prometheus text and carries the process, event-loop and database series', async () => {
    const scraped = await scrape(running);
    for (const family of ['process_cpu_user_seconds_total', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'process_resident_memory_bytes'])
      expect(scraped.types.has(family)).toBe(true);
    expect(scraped.types.get('mcp_server_operation_duration_seconds')).toBe('histogram');
    expect(scraped.types.get('db_client_operation_duration_seconds')).toBe('histogram');
    // The start-up queries (migrations, the lock) were timed.
    expect(sumOf(scraped, 'db_client_operation_duration_seconds_count', { db_operation_name: 'SELECT', outcome: 'ok' })).toBeGreaterThan(0);
    expect(sumOf(scraped, 'db_client_connection_count')).toBeGreaterThan(0);
    expect(scraped.types.has('db_client_connection_pending_requests')).toBe(true);
    expect(valueOf(scraped, 'files_extractions', { state: 'running' })).toBe(0);
    expect(valueOf(scraped, 'mcp_tasks_open')).toBe(0);
  });

  it.each(ERAS)('counts tool calls by method, tool, outcome and revision (%s, official client)', async (era) => {
    const before = await scrape(running);
    await withClient(running.url, era, bearer(alice), async (client) => {
      for (let index = 0; index < 3; index++) expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).isError).toBeFalsy();
      expect((await client.callTool({ name: 'echo', arguments: { text: 42 } })).isError).toBe(true);
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no_such_tool/);
    });
    const after = await scrape(running);
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    const call = { mcp_method_name: 'tools/call', mcp_protocol_version: era };
    expect(delta(...operation({ ...call, gen_ai_tool_name: 'echo', error_type: '' }))).toBe(3);
    expect(delta(...operation({ ...call, gen_ai_tool_name: 'echo', error_type: 'tool_error' }))).toBe(1);
    // A name the server does not know never becomes a label of its own.
    expect(delta(...operation({ ...call, gen_ai_tool_name: '_OTHER', error_type: '-32602' }))).toBe(1);
    expect(after.samples.some((sample) => sample.labels.gen_ai_tool_name === 'no_such_tool')).toBe(false);
    expect(delta('mcp_tool_calls_total', { gen_ai_tool_name: 'echo', outcome: 'ok' })).toBe(3);
    expect(delta('mcp_tool_calls_total', { gen_ai_tool_name: 'echo', outcome: 'tool_error' })).toBe(1);
    const listed = era === '2026-07-28' ? 'server/discover' : 'initialize';
    expect(sumOf(after, 'mcp_server_operation_duration_seconds_count', { mcp_method_name: listed })).toBeGreaterThan(0);
    expect(
      delta('http_server_request_duration_seconds_count', { http_request_method: 'POST', http_route: '/mcp', http_response_status_code: '200' }),
    ).toBeGreaterThanOrEqual(5);
  });

  it('counts a cancelled task cancelled and logs it at info without a stack; a bug in a tool stays internal_error', async () => {
    const logged: { level: string; args: unknown[] }[] = [];
    for (const level of ['log', 'warn', 'error'] as const)
      jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => void logged.push({ level, args }));
    try {
      const admin = await partyOf(running, 'root', { roles: ['admin'] });
      const before = await scrape(running);
      const mcp = tasksClient(running.url, bearer(alice));
      const longTask = async () => {
        const created = await mcp.call('wait_for', { ms: 60_000 });
        expect(created).toMatchObject({ resultType: 'task', status: 'working' });
        return created['taskId'] as string;
      };
      await mcp.cancel(await longTask());
      const byAdmin = await jsonCall(running, 'POST', `/admin/tasks/${await longTask()}/cancel`, admin.token);
      expect([byAdmin.status, byAdmin.body.status]).toEqual([200, 'cancelled']);
      // A failure of the server's own, for contrast: the task tool throws a plain Error.
      expect(await mcp.call('break_later', { ms: 0 })).toMatchObject({ isError: true });

      const delta = async (outcome: string) =>
        valueOf(await scrape(running), 'mcp_tool_calls_total', { gen_ai_tool_name: 'wait_for', outcome }) -
        valueOf(before, 'mcp_tool_calls_total', { gen_ai_tool_name: 'wait_for', outcome });
      // The stopped tool's end is recorded when it has unwound, just after the cancellation's answer.
      await eventually(async () => expect(await delta('cancelled')).toBe(2));
      expect([await delta('internal_error'), await delta('tool_error'), await delta('ok')]).toEqual([0, 0, 0]);
      const broken = { gen_ai_tool_name: 'break_later', outcome: 'internal_error' };
      expect(valueOf(await scrape(running), 'mcp_tool_calls_total', broken) - valueOf(before, 'mcp_tool_calls_total', broken)).toBe(1);

      const about = (tool: string) => logged.filter(({ args }) => String(args[0]).startsWith(`Tool ${tool} `));
      const cancellations = about('wait_for');
      expect(cancellations.map(({ level }) => level)).toEqual(['log', 'log']);
      for (const { args } of cancellations) {
        expect(args).toHaveLength(1);
        expect(args[0]).toMatch(/^Tool wait_for cancelled \(request id [^)]+\): Stopped: the task was cancelled$/);
      }
      const [failure] = about('break_later');
      expect(failure?.level).toBe('error');
      expect(String(failure?.args[1])).toMatch(/^\s+at /);
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('labels a method the protocol does not define _OTHER, and a refusal by its JSON-RPC code', async () => {
    const before = await scrape(running);
    const unknown = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'made/up', params: {} });
    await postRaw(running.url, unknown, { ...JSON_HEADERS, ...bearer(alice), 'mcp-protocol-version': '2025-11-25' });
    const badToken = await postRaw(running.url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { ...JSON_HEADERS, ...bearer('not-a-token') });
    expect(badToken.status).toBe(401);
    const after = await scrape(running);
    expect(sumOf(after, 'mcp_server_operation_duration_seconds_count', { mcp_method_name: '_OTHER' })).toBeGreaterThan(
      sumOf(before, 'mcp_server_operation_duration_seconds_count', { mcp_method_name: '_OTHER' }),
    );
    expect(after.samples.some((sample) => sample.labels.mcp_method_name === 'made/up')).toBe(false);
    const refused = { mcp_method_name: 'tools/list', error_type: '-32000', gen_ai_tool_name: '', mcp_protocol_version: '' };
    expect(valueOf(after, ...operation(refused)) - valueOf(before, ...operation(refused))).toBe(1);
  });

  it('counts the sessions a 2025 client holds open', async () => {
    const client = await connectClient(running.url, '2025-11-25', bearer(alice));
    try {
      expect(valueOf(await scrape(running), 'mcp_server_sessions_open')).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
  });

  it('adds the bytes of stored uploads, and not those of a refused one', async () => {
    const before = valueOf(await scrape(running), 'files_upload_bytes_total');
    expect((await uploadFile(running, alice, 'note.txt', 'twelve bytes')).status).toBe(201);
    expect((await uploadFile(running, undefined, 'note.txt', 'anonymous upload')).status).toBe(401);
    expect(valueOf(await scrape(running), 'files_upload_bytes_total') - before).toBe(12);
  });

  it('counts rate-limit refusals by budget', async () => {
    const before = valueOf(await scrape(running), 'rate_limit_refusals_total', { budget: 'anonymous' });
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const statuses: number[] = [];
    for (let index = 0; index < 45; index++) statuses.push((await postRaw(running.url, ping)).status);
    const refusals = statuses.filter((status) => status === 429).length;
    expect(refusals).toBeGreaterThan(0);
    expect(valueOf(await scrape(running), 'rate_limit_refusals_total', { budget: 'anonymous' }) - before).toBe(refusals);
  });
});

describe('the Grafana dashboard (docs/grafana)', () => {
  const env = { ...ENV, RATE_LIMIT_ANONYMOUS_REQUESTS: '2' };
  let running: RunningApp;
  let alice: string;

  beforeAll(async () => {
    running = await startApp(env);
    alice = await cliToken(running, env, '--sub', 'alice');
  });

  afterAll(async () => {
    await running.close();
  });

  it('asks only for series the server exposes, by labels they carry', async () => {
    const dashboard = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../docs/grafana/mirobody-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    // Traffic that makes a series of each family the panels ask for: calls, a tool error, refusals.
    await withClient(running.url, '2025-11-25', bearer(alice), async (client) => {
      await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      await client.callTool({ name: 'echo', arguments: { text: 42 } });
    });
    for (let index = 0; index < 3; index++) await postRaw(running.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    const scraped = await scrape(running);
    const problems: string[] = [];
    for (const { title, targets } of dashboard.panels) {
      for (const { expr } of targets) {
        const names = [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map(([, name]) => name!);
        if (names.length === 0) problems.push(`${title}: no series in ${expr}`);
        for (const name of names) if (!scraped.samples.some((sample) => sample.name === name)) problems.push(`${title}: ${name} is not exposed`);
        const grouped = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap(([, labels]) => labels!.split(',').map((label) => label.trim()));
        for (const label of grouped.filter((label) => label !== 'le'))
          if (!scraped.samples.some((sample) => names.includes(sample.name) && label in sample.labels))
            problems.push(`${title}: no ${label} label on ${names.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('METRICS_PORT', () => {
  let running: RunningApp;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    running = await startApp({ METRICS_PORT: String(port) });
  });

  afterAll(async () => {
    await running.close();
  });

  it('serves /metrics on a port of its own, without a token, and nothing else there', async () => {
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(scraped.status).toBe(200);
    expect(parsePrometheus(await scraped.text()).types.has('http_server_request_duration_seconds')).toBe(true);
    expect((await fetch(`http://127.0.0.1:${port}/mcp`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(405);
    // The main port serves no metrics without METRICS_TOKEN.
    expect((await fetch(new URL('/metrics', running.url))).status).toBe(404);
  });

  it('is closed with the app, so that a restart can bind it again', async () => {
    const second = await startApp({ METRICS_PORT: String(await freePort()) });
    const secondPort = Number((second.app.get(MetricsPort) as unknown as { server: { address(): { port: number } } }).server.address().port);
    await second.close();
    const again = createServer();
    await new Promise<void>((resolve, reject) => again.once('error', reject).listen(secondPort, '127.0.0.1', resolve));
    await new Promise((resolve) => again.close(resolve));
  });
});

describe('without METRICS_TOKEN or METRICS_PORT', () => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp();
  });

  afterAll(async () => {
    await running.close();
  });

  it('serves no metrics', async () => {
    expect((await fetch(new URL('/metrics', running.url), { headers: bearer(METRICS_TOKEN) })).status).toBe(404);
  });
});
