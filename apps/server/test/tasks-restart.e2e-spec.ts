import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './support/files.js';
import { seedEmbeddedDatabase } from './support/pglite-template.js';
import { startProcess, stopGroup, type Started } from './support/processes.js';
import { copyProject } from './support/project-copy.js';
import { tasksClient } from './support/tasks-wire.js';
import { CONFORMANCE_TOOLS } from './support/test-app.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/test-database.js';

/**
 * A server killed with SIGKILL while it runs a task, and started again: the task ends `failed`
 * (its lease ran out, and the restarted server fails it) with an error saying why, never stays
 * `working`; a task that had finished keeps its result. The server runs in a process of its own,
 * on the embedded database, or on a database of TEST_DATABASE_URL's server when that is set.
 */
const LEASE_SECONDS = 2;
let project: string;
let database: TestDatabase | undefined;
let server: Started | undefined;

function start(): Started {
  return startProcess(project, process.execPath, ['dist/apps/server/src/main.js'], {
    DATA_DIR: join(project, 'data'),
    MCP_TOOL_DIRS: CONFORMANCE_TOOLS,
    MCP_TASK_LEASE: String(LEASE_SECONDS),
    RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
    ...(database ? { DATABASE_URL: database.url } : {}),
  });
}

beforeAll(async () => {
  project = copyProject('mirobody-tasks-restart-', { build: true });
  if (TEST_DATABASE_URL) database = await createTestDatabase(TEST_DATABASE_URL);
  else seedEmbeddedDatabase(join(project, 'data'));
}, 120_000);

afterAll(async () => {
  if (server) await stopGroup(server, 'SIGKILL');
  await database?.drop();
  rmSync(project, { recursive: true, force: true });
});

describe('a task whose server was killed', () => {
  it('ends failed after the restart, saying the server stopped; a finished task keeps its result', async () => {
    server = start();
    const before = tasksClient(new URL(await server.announcement(1)));
    const finished = (await before.call('slow_compute', { seconds: 1, label: 'kept' })) as { taskId: string };
    await eventually(async () => expect(await before.get(finished.taskId)).toMatchObject({ status: 'completed' }), 10_000);
    const running = (await before.call('slow_compute', { seconds: 600, label: 'cut' })) as { taskId: string };
    expect(await before.get(running.taskId)).toMatchObject({ status: 'working' });

    await stopGroup(server, 'SIGKILL');
    server = start();
    const after = tasksClient(new URL(await server.announcement(1)));
    const killedAt = Date.now();
    await eventually(async () => expect(await after.get(running.taskId)).toMatchObject({ status: 'failed' }), 20_000);
    const failed = await after.get(running.taskId);
    expect(failed).toMatchObject({ error: { code: -32603, message: expect.stringContaining('stopped before it finished') } });
    expect(failed).not.toHaveProperty('result');
    // Failed within a lease and a few heartbeats of the restart, not at the TTL or never.
    expect(Date.now() - killedAt).toBeLessThan((LEASE_SECONDS + 5) * 1000);
    const kept = await after.get(finished.taskId);
    expect(kept).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Computed kept in 1s' }] } });
  }, 90_000);
});
