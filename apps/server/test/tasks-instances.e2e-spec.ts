import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import { bearer, cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { eventually } from './support/files.js';
import { redisService, TEST_REDIS_URL } from './support/redis.js';
import { describeNeeding } from './support/services.js';
import { TaskProbeService, TaskToolsModule } from './support/task-tools.module.js';
import { tasksClient, type TasksClient } from './support/tasks-wire.js';
import { startApp, type RunningApp } from './support/test-app.js';
import { createTestDatabase, postgresService, SHARED_DATABASE_SERVER_URL, type TestDatabase } from './support/test-database.js';

/**
 * Two instances on one PostgreSQL database, as behind a load balancer: a task created through one
 * is read, answered and cancelled through the other, and the instance running it hears of an
 * answer or a cancellation through Redis at once, or without Redis at its next heartbeat (a third
 * of MCP_TASK_LEASE).
 */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', MCP_TASK_LEASE: '3' };

const describeWithPostgres = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL));
const describeWithPostgresAndRedis = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL), redisService(TEST_REDIS_URL));

function instancesSharingTasks(env: Record<string, string>) {
  const instances = {} as { first: TasksClient; second: TasksClient; apps: RunningApp[] };
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
    // One after the other: the first applies the migrations.
    const first = await startApp({ ...ENV, ...env, DATABASE_URL: database.url }, { imports: [TaskToolsModule] });
    const second = await startApp({ ...ENV, ...env, DATABASE_URL: database.url }, { imports: [TaskToolsModule] });
    const alice = bearer(await cliToken(first, ENV, '--sub', 'alice'));
    instances.apps = [first, second];
    instances.first = tasksClient(first.url, alice);
    instances.second = tasksClient(second.url, alice);
  });
  afterAll(async () => {
    await Promise.all(instances.apps?.map((app) => app.close()) ?? []);
    await database?.drop();
  });
  return instances;
}

/** The pending input request of a task, once it asks. */
async function pendingInput(client: TasksClient, taskId: string): Promise<string> {
  let keys: string[] = [];
  await eventually(async () => {
    const task = await client.get(taskId);
    keys = Object.keys((task['inputRequests'] as object | undefined) ?? {});
    expect(keys).toHaveLength(1);
  }, 5000);
  return keys[0]!;
}

function sharedTasks(answerWithinMs: number) {
  return (instances: { first: TasksClient; second: TasksClient; apps: RunningApp[] }) => {
    it('a task made through one instance is answered through the other, and the tool running on the first resumes', async () => {
      const { taskId } = (await instances.first.call('ask_name')) as { taskId: string };
      const key = await pendingInput(instances.second, taskId);
      const answered = Date.now();
      await instances.second.update(taskId, { [key]: { action: 'accept', content: { name: 'Grace' } } });
      await eventually(async () => expect(await instances.second.get(taskId)).toMatchObject({ status: 'completed' }), 5000);
      expect(Date.now() - answered).toBeLessThan(answerWithinMs);
      expect(await instances.first.get(taskId)).toMatchObject({ result: { content: [{ text: 'Hello, Grace' }] } });
    });

    it('a task cancelled through the other instance stops on the first, and stays cancelled', async () => {
      const tools = instances.apps[0]!.app.get(TaskProbeService);
      const ended = tools.waitsEnded;
      const { taskId } = (await instances.first.call('wait_for', { ms: 4000 })) as { taskId: string };
      expect(await instances.second.get(taskId)).toMatchObject({ status: 'working' });
      await instances.second.cancel(taskId);
      // Past the tool's own time: a tool the first instance had not stopped would have ended by then.
      await new Promise((resolve) => setTimeout(resolve, 4500));
      expect(tools.waitsEnded).toBe(ended);
      expect(await instances.first.get(taskId)).toMatchObject({ status: 'cancelled' });
      expect(await instances.first.get(taskId)).not.toHaveProperty('result');
    });
  };
}

describeWithPostgresAndRedis('tasks across two instances with Redis', () => {
  sharedTasks(1000)(instancesSharingTasks({ REDIS_URL: TEST_REDIS_URL }));
});

describeWithPostgres('tasks across two instances without Redis', () => {
  // The first hears of the answer at its next heartbeat: a third of the 3 s lease.
  sharedTasks(2500)(instancesSharingTasks({}));
});

describeWithPostgres('a task still running when its instance shuts down', () => {
  it('ends failed, saying the server shut down, so that no client polls a task nobody runs', async () => {
    const database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
    try {
      const app = await startApp({ ...ENV, DATABASE_URL: database.url }, { imports: [TaskToolsModule] });
      const alice = tasksClient(app.url, bearer(await cliToken(app, ENV, '--sub', 'alice')));
      const { taskId } = (await alice.call('wait_for', { ms: 600_000 })) as { taskId: string };
      await app.close();
      const rows = new pg.Client({ connectionString: database.url });
      await rows.connect();
      const {
        rows: [task],
      } = await rows.query('SELECT status, error FROM mcp_tasks WHERE id = $1', [taskId]);
      await rows.end();
      expect(task).toEqual({ status: 'failed', error: { code: -32603, message: 'The server shut down while the task was running; call the tool again' } });
    } finally {
      await database.drop();
    }
  });
});
