import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { bearer, TEST_JWT_SECRET } from './support/auth.js';
import { ApprovalProbeService, ApprovalToolsModule } from './support/approval-tools.module.js';
import { eventually } from './support/files.js';
import { jsonCall } from './support/json-call.js';
import { partyOf, type Party } from './support/parties.js';
import { redisService, TEST_REDIS_URL } from './support/redis.js';
import { describeNeeding } from './support/services.js';
import { tasksClient } from './support/tasks-wire.js';
import { startApp, type RunningApp } from './support/test-app.js';
import { createTestDatabase, postgresService, SHARED_DATABASE_SERVER_URL, type TestDatabase } from './support/test-database.js';

/**
 * Two instances on one PostgreSQL database: a call waits for an approver on the first, the
 * approver decides through the second, and the first runs it (hearing of the decision through
 * Redis at once, or without Redis at its next sweep), once.
 */
const ENV = {
  JWT_SECRET: TEST_JWT_SECRET,
  RATE_LIMIT_REQUESTS: '0',
  // Both instances open the arguments each other sealed.
  SIGNING_SECRET: 'a-signing-secret-shared-by-both-instances',
  APPROVALS_APPROVER_ROLE: 'approver',
};

const describeWithPostgres = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL));
const describeWithPostgresAndRedis = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL), redisService(TEST_REDIS_URL));

function decidedOnTheOtherInstance(env: Record<string, string>, withinMs: number) {
  let apps: RunningApp[] = [];
  let database: TestDatabase | undefined;
  let alice: Party;
  let approver: Party;
  beforeAll(async () => {
    database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
    // One after the other: the first applies the migrations.
    const first = await startApp({ ...ENV, ...env, DATABASE_URL: database.url }, { imports: [ApprovalToolsModule] });
    const second = await startApp({ ...ENV, ...env, DATABASE_URL: database.url }, { imports: [ApprovalToolsModule] });
    apps = [first, second];
    alice = await partyOf(first, 'alice');
    approver = await partyOf(first, 'vera', { roles: ['approver'] });
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await database?.drop();
  });

  it('runs the call on the instance where it waits, once, when the approval comes through the other', async () => {
    const [first, second] = apps as [RunningApp, RunningApp];
    const wire = tasksClient(first.url, bearer(alice.token));
    const { taskId } = (await wire.call('delete_record', { id: 'r-elsewhere' })) as { taskId: string };
    let id = '';
    await eventually(async () => {
      const page = await jsonCall(second, 'GET', '/admin/approvals?status=pending', approver.token);
      expect(page.body.items).toEqual([expect.objectContaining({ arguments: { id: 'r-elsewhere' } })]);
      id = page.body.items[0].id as string;
    }, 5000);
    const decidedAt = Date.now();
    expect((await jsonCall(second, 'POST', `/admin/approvals/${id}/approve`, approver.token, {})).status).toBe(200);
    await eventually(async () => expect(await tasksClient(second.url, bearer(alice.token)).get(taskId)).toMatchObject({ status: 'completed' }), 5000);
    expect(Date.now() - decidedAt).toBeLessThan(withinMs);
    const task = await wire.get(taskId);
    expect(task).toMatchObject({ result: { content: [{ text: `deleted r-elsewhere for ${alice.id}` }] } });
    expect(first.app.get(ApprovalProbeService).runsOf('delete_record', 'r-elsewhere')).toBe(1);
    expect(second.app.get(ApprovalProbeService).runsOf('delete_record', 'r-elsewhere')).toBe(0);
  });

  it('ends the waiting call with the reason when the other instance declines it', async () => {
    const [first, second] = apps as [RunningApp, RunningApp];
    const wire = tasksClient(first.url, bearer(alice.token));
    const { taskId } = (await wire.call('delete_record', { id: 'r-declined-elsewhere' })) as { taskId: string };
    let id = '';
    await eventually(async () => {
      const page = await jsonCall(second, 'GET', '/admin/approvals?status=pending', approver.token);
      id = (page.body.items as { id: string; arguments: { id: string } }[]).find((item) => item.arguments.id === 'r-declined-elsewhere')!.id;
    }, 5000);
    await jsonCall(second, 'POST', `/admin/approvals/${id}/decline`, approver.token, { reason: 'not this one' });
    await eventually(async () => expect(await wire.get(taskId)).toMatchObject({ status: 'completed', result: { isError: true } }), 5000);
    expect(JSON.stringify(await wire.get(taskId))).toContain('not this one');
  });
}

describeWithPostgresAndRedis('approvals across two instances with Redis', () => {
  decidedOnTheOtherInstance({ REDIS_URL: TEST_REDIS_URL }, 2000);
});

describeWithPostgres('approvals across two instances without Redis', () => {
  // The first finds the decision at its next sweep, a second after the last.
  decidedOnTheOtherInstance({}, 3000);
});
