import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { ServerInstances } from '@app/database';
import { bearer, TEST_JWT_SECRET } from './support/auth.js';
import { ConsoleToolsModule } from './support/console-tools.module.js';
import { eventually } from './support/files.js';
import { jsonCall } from './support/json-call.js';
import { partiesOf, partyOf, statusesOf, type Parties } from './support/parties.js';
import { describeNeeding } from './support/services.js';
import { TaskToolsModule } from './support/task-tools.module.js';
import { tasksClient } from './support/tasks-wire.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';
import { createTestDatabase, postgresService, SHARED_DATABASE_SERVER_URL, TEST_DATABASE_URL, type TestDatabase } from './support/test-database.js';

/** `GET /admin/overview`: the deployment as the database all its instances share sees it. */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0' };
const VERSION = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version as string;

/** A tools/call over /mcp, answered with the request id the server gave it. */
async function callOverMcp(
  app: RunningApp,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ requestId: string; result: Record<string, unknown> }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  const answer = await postRaw(app.url, body, { ...JSON_HEADERS, ...bearer(token) });
  expect(answer.status).toBe(200);
  return { requestId: answer.headers.get('x-request-id')!, result: answer.json().result };
}

describe('the admin overview', () => {
  let app: RunningApp;
  let parties: Parties;
  const overview = async () => {
    const answer = await jsonCall(app, 'GET', '/admin/overview', parties.admin.token);
    expect(answer.status).toBe(200);
    return answer.body;
  };

  beforeAll(async () => {
    app = await startApp(ENV, { imports: [TaskToolsModule, ConsoleToolsModule] });
    parties = await partiesOf(app);
  });
  afterAll(() => app?.close());

  it('is for admins only: 401 without a credential, 403 for a user', async () => {
    expect(await statusesOf(app, 'GET', '/admin/overview', parties)).toEqual({ anonymous: 401, user: 403, admin: 200 });
  });

  it('names this instance and the database it runs on', async () => {
    const { instances, database } = await overview();
    const self = app.app.get(ServerInstances).id;
    expect(instances).toEqual([{ id: self, hostname: hostname(), version: VERSION, startedAt: expect.any(String), lastSeenAt: expect.any(String) }]);
    expect(Date.now() - Date.parse(instances[0].lastSeenAt)).toBeLessThan(20_000);
    expect(database).toEqual({ kind: TEST_DATABASE_URL ? 'postgres' : 'embedded', ok: true, latencyMs: expect.any(Number) });
  });

  it("counts the last hour's calls of signed-in users by minute and by tool, and lists the failures newest first with their request ids", async () => {
    for (let i = 0; i < 3; i++) await callOverMcp(app, parties.alice.token, 'echo', { text: `hello ${i}` });
    await callOverMcp(app, parties.bob.token, 'echo', { text: 'hello' });
    const missing = await callOverMcp(app, parties.alice.token, 'read_file', { file_key: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(missing.result).toMatchObject({ isError: true });
    const broken = await callOverMcp(app, parties.bob.token, 'break_now', {});
    // Anonymous calls are in no access log: they count nowhere here.
    await postRaw(app.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }));

    let body: Record<string, any> = {};
    await eventually(async () => {
      body = await overview();
      expect(body['recentErrors']).toHaveLength(2);
    }, 5000);
    const { perMinute, tools } = body['lastHour'];
    expect(perMinute).toHaveLength(60);
    expect(Date.parse(perMinute[59].minute)).toBeLessThanOrEqual(Date.now());
    expect(Date.now() - Date.parse(perMinute[59].minute)).toBeLessThan(60_000 + 5000);
    const sum = (field: 'calls' | 'errors') => perMinute.reduce((total: number, minute: Record<string, number>) => total + minute[field]!, 0);
    expect([sum('calls'), sum('errors')]).toEqual([6, 2]);
    expect(tools).toEqual([
      { tool: 'echo', calls: 4, errors: 0, p50Ms: expect.any(Number), p99Ms: expect.any(Number) },
      { tool: 'break_now', calls: 1, errors: 1, p50Ms: expect.any(Number), p99Ms: expect.any(Number) },
      { tool: 'read_file', calls: 1, errors: 1, p50Ms: expect.any(Number), p99Ms: expect.any(Number) },
    ]);
    expect(tools[0].p99Ms).toBeGreaterThanOrEqual(tools[0].p50Ms);
    expect(body['recentErrors']).toEqual([
      {
        at: expect.any(String),
        tool: 'break_now',
        userId: parties.bob.id,
        userEmail: parties.bob.email,
        requestId: broken.requestId,
        message: 'Internal error',
      },
      {
        at: expect.any(String),
        tool: 'read_file',
        userId: parties.alice.id,
        userEmail: parties.alice.email,
        requestId: missing.requestId,
        message: 'File not found.',
      },
    ]);
    // What the caller saw names the same request id; the details stay in the server's log.
    expect(JSON.stringify(broken.result)).toContain(`Internal error (request id ${broken.requestId})`);
    expect(JSON.stringify(body)).not.toContain('a bug in the tool');
  });

  it('counts the tasks in progress of every user, working and waiting for input', async () => {
    const before = (await overview()).tasks;
    const alice = tasksClient(app.url, bearer(parties.alice.token));
    const { taskId: working } = (await alice.call('wait_for', { ms: 60_000 })) as { taskId: string };
    const { taskId: asking } = (await tasksClient(app.url).call('ask_name')) as { taskId: string };
    await eventually(async () => expect((await overview()).tasks).toEqual({ working: before.working + 1, inputRequired: before.inputRequired + 1 }), 5000);
    await alice.cancel(working);
    await tasksClient(app.url).cancel(asking);
    expect((await overview()).tasks).toEqual(before);
  });

  it('leaves out instances that stopped reporting, and forgets them after a day', async () => {
    const rows = app.app.get(DataSource);
    const gone = '00000000-0000-4000-8000-000000000001';
    const forgotten = '00000000-0000-4000-8000-000000000002';
    await rows.query(
      `INSERT INTO server_instances (id, hostname, version, started_at, last_seen_at) VALUES
         ($1, 'gone', '0.0.1', now() - interval '1 hour', now() - interval '1 minute'),
         ($2, 'forgotten', '0.0.1', now() - interval '3 days', now() - interval '25 hours')`,
      [gone, forgotten],
    );
    expect((await overview()).instances.map((instance: { id: string }) => instance.id)).toEqual([app.app.get(ServerInstances).id]);
    await app.app.get(ServerInstances).report();
    const left = (await rows.query('SELECT id FROM server_instances ORDER BY id')).map((row: { id: string }) => row.id);
    expect(left).toEqual(expect.arrayContaining([gone]));
    expect(left).not.toContain(forgotten);
  });
});

const describeWithPostgres = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL));

describeWithPostgres('the admin overview of two instances on one database', () => {
  let database: TestDatabase;
  let first: RunningApp;
  let second: RunningApp | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
    // One after the other: the first applies the migrations.
    first = await startApp({ ...ENV, DATABASE_URL: database.url }, { imports: [ConsoleToolsModule] });
    second = await startApp({ ...ENV, DATABASE_URL: database.url }, { imports: [ConsoleToolsModule] });
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await database?.drop();
  });

  it("lists both, counts each one's calls in one view, and drops an instance as soon as it shuts down", async () => {
    const admin = await partyOf(first, 'root', { roles: ['admin'] });
    const alice = await partyOf(first, 'alice');
    await callOverMcp(first, alice.token, 'echo', { text: 'one' });
    await callOverMcp(second!, alice.token, 'echo', { text: 'two' });
    const ids = [first.app.get(ServerInstances).id, second!.app.get(ServerInstances).id];
    await eventually(async () => {
      const { body } = await jsonCall(second!, 'GET', '/admin/overview', admin.token);
      expect(body.instances.map((instance: { id: string }) => instance.id).sort()).toEqual([...ids].sort());
      expect(body.lastHour.tools).toEqual([expect.objectContaining({ tool: 'echo', calls: 2 })]);
    }, 5000);
    await second!.close();
    second = undefined;
    expect((await jsonCall(first, 'GET', '/admin/overview', admin.token)).body.instances.map((instance: { id: string }) => instance.id)).toEqual([ids[0]]);
  });
});
