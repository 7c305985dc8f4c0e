import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { eventually } from './support/files.js';
import { TaskToolsModule } from './support/task-tools.module.js';
import { tasksClient } from './support/tasks-wire.js';
import { startApp, type RunningApp } from './support/test-app.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' };

describe('the tasks extension’s limits', () => {
  let app: RunningApp;
  const as = async (sub: string) => tasksClient(app.url, bearer(await cliToken(app, ENV, '--sub', sub)));

  beforeAll(async () => {
    // Every call a task at once; a TTL of 2 s and a lease of 1 s (a heartbeat every third of a second), so a test can outlive both.
    app = await startApp(
      { ...ENV, MCP_MAX_TASKS_PER_USER: '3', MCP_TASK_ANSWER_WITHIN_MS: '0', MCP_TASK_TTL: '2', MCP_TASK_LEASE: '1' },
      { imports: [TaskToolsModule] },
    );
  });
  afterAll(() => app?.close());

  it('holds a user to MCP_MAX_TASKS_PER_USER when their calls arrive all at once', async () => {
    const carol = await as('carol');
    const answers = await Promise.all(Array.from({ length: 16 }, () => carol.call('wait_for', { ms: 60_000 })));
    const tasks = answers.filter((answer) => answer['resultType'] === 'task');
    expect([tasks.length, answers.filter((answer) => answer['isError'] === true).length]).toEqual([3, 13]);
    await Promise.all(tasks.map((task) => carol.cancel(task['taskId'] as string)));
  });

  it('ends a task still waiting for an answer at its TTL, and lets a working one run on past it', async () => {
    const dave = await as('dave');
    const working = await dave.call('wait_for', { ms: 3500 });
    const asking = await dave.call('ask_name');
    expect([working['resultType'], asking['resultType']]).toEqual(['task', 'task']);
    await eventually(async () => {
      expect(await dave.get(asking['taskId'] as string)).toMatchObject({ status: 'failed', error: { message: 'The task did not end within its TTL' } });
    }, 10_000);
    // Past its TTL too by now, and still running: it ends with its result.
    expect(await dave.get(working['taskId'] as string)).toMatchObject({ status: 'working' });
    await eventually(async () => {
      expect(await dave.get(working['taskId'] as string)).toMatchObject({ status: 'completed' });
    }, 10_000);
  });
});
