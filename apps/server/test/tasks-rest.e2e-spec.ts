import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, TEST_JWT_SECRET } from './support/auth.js';
import { eventually } from './support/files.js';
import { jsonCall } from './support/json-call.js';
import { auditEntries, partiesOf, partyOf, statusesOf, type Parties } from './support/parties.js';
import { parsePrometheus, valueOf } from './support/prometheus.js';
import { redisService, TEST_REDIS_URL } from './support/redis.js';
import { describeNeeding } from './support/services.js';
import { TaskProbeService, TaskToolsModule } from './support/task-tools.module.js';
import { tasksClient, type TasksClient } from './support/tasks-wire.js';
import { startApp, type RunningApp } from './support/test-app.js';
import { createTestDatabase, postgresService, SHARED_DATABASE_SERVER_URL, type TestDatabase } from './support/test-database.js';

/**
 * The REST face of MCP tasks (`/api/tasks`, `/admin/tasks`): the same rows `tasks/get` reads, and a
 * cancellation that takes the path of `tasks/cancel`, so the tool stops wherever it runs.
 */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' };
const METRICS_TOKEN = 'a-metrics-token-of-at-least-32-characters';
/** An id spelled as task ids are (43 characters of base64url) that no task has. */
const UNKNOWN_ID = 'A'.repeat(43);
const MALFORMED_IDS = ['abc', 'A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}+`, `${'A'.repeat(42)}%20`];

/** A task of `client`'s that runs until cancelled (a minute). */
async function longTask(client: TasksClient): Promise<string> {
  const created = await client.call('wait_for', { ms: 60_000 });
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  return created['taskId'] as string;
}

/** A task that waits for the client's answer: the one kind an anonymous caller can have here (`wait_for` acts for a user). */
async function askingTask(client: TasksClient): Promise<string> {
  const created = await client.call('ask_name');
  expect(created).toMatchObject({ resultType: 'task' });
  return created['taskId'] as string;
}

describe('tasks over REST', () => {
  let app: RunningApp;
  let parties: Parties;
  const mcp = (who: 'alice' | 'bob' | 'anonymous') => tasksClient(app.url, who === 'anonymous' ? {} : bearer(parties[who].token));

  beforeAll(async () => {
    app = await startApp(ENV, { imports: [TaskToolsModule] });
    parties = await partiesOf(app);
  });
  afterAll(() => app?.close());

  it("lists the caller's own tasks, newest first, by status and by pages", async () => {
    const first = await longTask(mcp('alice'));
    const quick = await mcp('alice').call('wait_for', { ms: 700 });
    await eventually(async () => expect((await mcp('alice').get(quick['taskId'] as string))['status']).toBe('completed'), 5000);
    const bobs = await longTask(mcp('bob'));

    const all = await jsonCall(app, 'GET', '/api/tasks', parties.alice.token);
    expect(all.status).toBe(200);
    expect(all.body.items.map((task: { id: string }) => task.id)).toEqual([quick['taskId'], first]);
    expect(all.body.items[1]).toEqual({
      id: first,
      tool: 'wait_for',
      status: 'working',
      statusMessage: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      expiresAt: expect.any(String),
      error: null,
    });
    expect((await jsonCall(app, 'GET', '/api/tasks?status=completed', parties.alice.token)).body.items.map((task: { id: string }) => task.id)).toEqual([
      quick['taskId'],
    ]);
    const page = await jsonCall(app, 'GET', '/api/tasks?limit=1', parties.alice.token);
    expect(page.body.items).toHaveLength(1);
    const next = await jsonCall(app, 'GET', `/api/tasks?limit=1&cursor=${page.body.nextCursor}`, parties.alice.token);
    expect([next.body.items[0].id, next.body.nextCursor]).toEqual([first, null]);
    expect((await jsonCall(app, 'GET', '/api/tasks', parties.bob.token)).body.items.map((task: { id: string }) => task.id)).toEqual([bobs]);
    await Promise.all([mcp('alice').cancel(first), mcp('bob').cancel(bobs)]);
  });

  it.each([
    ['status=running', 'status'],
    ['status=', 'status'],
    ['limit=0', 'limit'],
    ['cursor=nonsense', 'cursor'],
    ['owner=bob', 'owner'],
  ])('answers ?%s with 400 naming the parameter', async (query, field) => {
    const answer = await jsonCall(app, 'GET', `/api/tasks?${query}`, parties.alice.token);
    expect([answer.status, Object.keys(answer.body.fields ?? {})]).toEqual([400, [field]]);
  });

  it('cancels a running task through the path tasks/cancel takes: the tool stops, and tasks/get says cancelled', async () => {
    const probe = app.app.get(TaskProbeService);
    const ended = probe.waitsEnded;
    const taskId = await longTask(mcp('alice'));
    const cancelled = await jsonCall(app, 'POST', `/api/tasks/${taskId}/cancel`, parties.alice.token);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: taskId, tool: 'wait_for', status: 'cancelled' });
    expect(await mcp('alice').get(taskId)).toMatchObject({ taskId, status: 'cancelled' });
    // Again: answered as it ended, and the tool never ran to its end.
    expect((await jsonCall(app, 'POST', `/api/tasks/${taskId}/cancel`, parties.alice.token)).body).toMatchObject({ status: 'cancelled' });
    expect(probe.waitsEnded).toBe(ended);
  });

  it('answers a task that already ended as it ended', async () => {
    const { taskId } = (await mcp('alice').call('wait_for', { ms: 600 })) as { taskId: string };
    await eventually(async () => expect((await mcp('alice').get(taskId))['status']).toBe('completed'), 5000);
    expect((await jsonCall(app, 'POST', `/api/tasks/${taskId}/cancel`, parties.alice.token)).body).toMatchObject({ id: taskId, status: 'completed' });
  });

  it("answers another user's task exactly like a missing one (404), a malformed id with 400 naming it, and anonymous callers with 401", async () => {
    const taskId = await longTask(mcp('alice'));
    for (const id of [taskId, UNKNOWN_ID]) {
      const answer = await jsonCall(app, 'POST', `/api/tasks/${id}/cancel`, parties.bob.token);
      expect([answer.status, answer.body.message]).toEqual([404, `No task with id ${id}`]);
    }
    for (const id of MALFORMED_IDS) {
      const answer = await jsonCall(app, 'POST', `/api/tasks/${id}/cancel`, parties.alice.token);
      expect([id, answer.status, answer.body.fields]).toEqual([id, 400, { id: expect.stringContaining('task id') }]);
    }
    expect((await jsonCall(app, 'POST', `/api/tasks/${taskId}/cancel`, undefined)).status).toBe(401);
    expect((await jsonCall(app, 'GET', '/api/tasks', undefined)).status).toBe(401);
    expect(await mcp('alice').get(taskId)).toMatchObject({ status: 'working' });
    await mcp('alice').cancel(taskId);
  });

  describe('for admins', () => {
    it("lists every user's tasks with their owners, by user, tool and status; anonymous callers' tasks have none", async () => {
      const alices = await longTask(mcp('alice'));
      const anonymous = await askingTask(mcp('anonymous'));
      const all = await jsonCall(app, 'GET', '/admin/tasks', parties.admin.token);
      expect(all.status).toBe(200);
      const byId = new Map(all.body.items.map((task: { id: string }) => [task.id, task]));
      expect(byId.get(alices)).toMatchObject({ ownerUserId: parties.alice.id, ownerEmail: parties.alice.email, status: 'working' });
      expect(byId.get(anonymous)).toMatchObject({ ownerUserId: null, ownerEmail: null });
      const alicesOnly = await jsonCall(app, 'GET', `/admin/tasks?userId=${parties.alice.id}&status=working`, parties.admin.token);
      expect(alicesOnly.body.items.map((task: { id: string }) => task.id)).toEqual([alices]);
      const asking = await jsonCall(app, 'GET', '/admin/tasks?tool=ask_name', parties.admin.token);
      expect(asking.body.items.map((task: { id: string }) => task.id)).toEqual([anonymous]);
      await Promise.all([mcp('alice').cancel(alices), mcp('anonymous').cancel(anonymous)]);
    });

    it.each([
      ['userId=not-a-uuid', 'userId'],
      ['status=done', 'status'],
      ['tool=', 'tool'],
      ['cursor=nonsense', 'cursor'],
    ])('answers ?%s with 400 naming the parameter', async (query, field) => {
      const answer = await jsonCall(app, 'GET', `/admin/tasks?${query}`, parties.admin.token);
      expect([answer.status, Object.keys(answer.body.fields ?? {})]).toEqual([400, [field]]);
    });

    it("cancels any user's task, on the audit trail with the owner as its target", async () => {
      const taskId = await longTask(mcp('alice'));
      const cancelled = await jsonCall(app, 'POST', `/admin/tasks/${taskId}/cancel`, parties.admin.token);
      expect([cancelled.status, cancelled.body]).toEqual([200, expect.objectContaining({ id: taskId, status: 'cancelled', ownerUserId: parties.alice.id })]);
      expect(await mcp('alice').get(taskId)).toMatchObject({ status: 'cancelled' });
      expect((await auditEntries(app, 'task.cancel')).at(-1)).toEqual({
        actor_id: parties.admin.id,
        target_user_id: parties.alice.id,
        detail: { taskId, tool: 'wait_for' },
      });
      const anonymous = await askingTask(mcp('anonymous'));
      expect((await jsonCall(app, 'POST', `/admin/tasks/${anonymous}/cancel`, parties.admin.token)).body).toMatchObject({
        status: 'cancelled',
        ownerUserId: null,
      });
      expect((await auditEntries(app, 'task.cancel')).at(-1)).toMatchObject({ target_user_id: null, detail: { taskId: anonymous, ownerUserId: null } });
    });

    it('answers 401 to anonymous callers and 403 to users; an unknown task is 404, a malformed id 400', async () => {
      const taskId = await longTask(mcp('alice'));
      expect(await statusesOf(app, 'GET', '/admin/tasks', parties)).toEqual({ anonymous: 401, user: 403, admin: 200 });
      expect(await statusesOf(app, 'POST', `/admin/tasks/${UNKNOWN_ID}/cancel`, parties)).toEqual({ anonymous: 401, user: 403, admin: 404 });
      expect(await statusesOf(app, 'POST', '/admin/tasks/abc/cancel', parties)).toEqual({ anonymous: 401, user: 403, admin: 400 });
      // Neither refusal touched it.
      expect((await jsonCall(app, 'POST', `/admin/tasks/${taskId}/cancel`, parties.bob.token)).status).toBe(403);
      expect(await mcp('alice').get(taskId)).toMatchObject({ status: 'working' });
      await mcp('alice').cancel(taskId);
    });
  });
});

const describeWithPostgresAndRedis = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL), redisService(TEST_REDIS_URL));

describeWithPostgresAndRedis('a cancellation over REST, on another instance than the one running the task', () => {
  let database: TestDatabase;
  let apps: RunningApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
    const env = { ...ENV, DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, METRICS_TOKEN };
    // One after the other: the first applies the migrations.
    apps = [await startApp(env, { imports: [TaskToolsModule] })];
    apps.push(await startApp(env, { imports: [TaskToolsModule] }));
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await database?.drop();
  });

  it('stops the tool where it runs at once (through Redis), and tasks/get on either says cancelled', async () => {
    const [first, second] = apps as [RunningApp, RunningApp];
    const alice = await partyOf(first, 'alice');
    const tasksOpen = async () =>
      valueOf(parsePrometheus(await (await fetch(new URL('/metrics', first.url), { headers: bearer(METRICS_TOKEN) })).text()), 'mcp_tasks_open');
    const probe = first.app.get(TaskProbeService);
    const ended = probe.waitsEnded;
    const { taskId } = (await tasksClient(first.url, bearer(alice.token)).call('wait_for', { ms: 60_000 })) as { taskId: string };
    expect(await tasksOpen()).toBe(1);
    const cancelledAt = Date.now();
    expect((await jsonCall(second, 'POST', `/api/tasks/${taskId}/cancel`, alice.token)).body).toMatchObject({ status: 'cancelled' });
    // Well before the first instance's next lease renewal (a third of MCP_TASK_LEASE, 10 s), which would find it cancelled too.
    await eventually(async () => expect(await tasksOpen()).toBe(0), 3000);
    expect(Date.now() - cancelledAt).toBeLessThan(5000);
    for (const app of apps) expect(await tasksClient(app.url, bearer(alice.token)).get(taskId)).toMatchObject({ status: 'cancelled' });
    expect(probe.waitsEnded).toBe(ended);
  });
});
