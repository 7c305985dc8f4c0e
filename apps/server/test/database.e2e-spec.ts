import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { JSON_HEADERS, startApp, type RunningApp } from './support/test-app.js';

let first: RunningApp;
let second: RunningApp;
const dataSource = (running: RunningApp) => running.app.get(DataSource);
const health = (running: RunningApp, path: string) => fetch(new URL(path, running.url));

beforeAll(async () => {
  [first, second] = await Promise.all([startApp(), startApp()]);
});

afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

describe('the database', () => {
  it('is migrated at start-up, with every lib’s migrations', async () => {
    const ran = (await dataSource(first).query('SELECT name FROM migrations')).map((row: { name: string }) => row.name);
    expect(ran).toContain('EnableVector1795996800000');
    expect(ran.sort()).toEqual(
      dataSource(first)
        .migrations.map((migration) => migration.constructor.name)
        .sort(),
    );
  });

  it('has pgvector wherever the server offers it (always, embedded)', async () => {
    const [{ available }] = await dataSource(first).query(`SELECT count(*)::int AS available FROM pg_available_extensions WHERE name = 'vector'`);
    const installed = await dataSource(first).query(`SELECT extname FROM pg_extension WHERE extname = 'vector'`);
    expect(installed).toHaveLength(available);
    if (!process.env.TEST_DATABASE_URL) expect(installed).toHaveLength(1);
  });

  it('is separate for each app, so tests never see each other’s rows', async () => {
    await dataSource(first).query('CREATE TABLE only_in_first (id int)');
    expect(await dataSource(second).query(`SELECT to_regclass('only_in_first') AS found`)).toEqual([{ found: null }]);
  });
});

describe('/health', () => {
  it('is ready while the database answers', async () => {
    for (const path of ['/health', '/health/ready']) {
      const response = await health(second, path);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
    }
  });

  it('tags every response with a request id, the caller’s own when it sends one', async () => {
    expect((await health(second, '/health/live')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const response = await fetch(new URL('/health/live', second.url), { headers: { 'x-request-id': 'trace-42' } });
    expect(response.headers.get('x-request-id')).toBe('trace-42');
  });

  it('tags the answers the MCP endpoint writes itself, too', async () => {
    const response = await fetch(second.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'x-request-id': 'mcp-trace-7' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('mcp-trace-7');
  });

  it('answers 503 naming the database once it is gone, while liveness stays 200', async () => {
    await dataSource(second).destroy();
    const ready = await health(second, '/health/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'error', error: { database: { status: 'down' } } });
    expect((await health(second, '/health/live')).status).toBe(200);
  });
});
