import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { McpTasks, TASKS_EXTENSION } from '@app/mcp';
import { bearer, cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { DataSource } from 'typeorm';
import { eventually, uploadFile } from './support/files.js';
import { parsePrometheus, valueOf } from './support/prometheus.js';
import { TaskToolsModule } from './support/task-tools.module.js';
import { JsonRpcFailure, tasksClient, tasksRequest, type TasksClient } from './support/tasks-wire.js';
import { connectClient, ERAS, startApp, type RunningApp } from './support/test-app.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' };
const METRICS_TOKEN = 'a-metrics-token-of-at-least-32-characters';

type Party = Record<string, string>;

/** The JSON-RPC error code a request is refused with. */
async function refusal(request: Promise<unknown>): Promise<number> {
  const error = await request.then(
    () => undefined,
    (thrown: { code?: number }) => thrown,
  );
  expect(error).toBeDefined();
  return error!.code!;
}

/** Polls `tasks/get` until the task's status is `status`, or it ended. */
async function settled(client: TasksClient, taskId: string, status = 'completed'): Promise<Record<string, unknown>> {
  let task: Record<string, unknown> = {};
  await eventually(async () => {
    task = await client.get(taskId);
    expect(['completed', 'failed', 'cancelled', status]).toContain(task['status']);
  }, 20_000);
  return task;
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe('the tasks extension over HTTP', () => {
  let app: RunningApp;
  const parties: Record<'alice' | 'bob' | 'anonymous', Party> = { alice: {}, bob: {}, anonymous: {} };
  const as = (who: keyof typeof parties, capabilities?: object) => tasksClient(app.url, parties[who], capabilities);

  beforeAll(async () => {
    app = await startApp({ ...ENV, MCP_MAX_TASKS_PER_USER: '3', MCP_TASK_MAX_RESULT_BYTES: '4096', METRICS_TOKEN }, { imports: [TaskToolsModule] });
    parties.alice = bearer(await cliToken(app, ENV, '--sub', 'alice'));
    parties.bob = bearer(await cliToken(app, ENV, '--sub', 'bob'));
  });
  afterAll(() => app?.close());

  it.each(ERAS)('advertises the extension to the official client (%s), and no task support of the first tasks revision', async (era) => {
    const client = await connectClient(app.url, era, parties.alice);
    expect((client.getServerCapabilities() as { extensions?: unknown }).extensions).toEqual({ [TASKS_EXTENSION]: {} });
    // `execution.taskSupport` would invite a 2025 client to the first revision's task-augmented calls, which this server does not serve.
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'wait_for')).not.toHaveProperty('execution');
    await client.close();
  });

  it('answers a long call with a task, whose progress, then result, tasks/get reads', async () => {
    const alice = as('alice');
    const created = await alice.call('wait_for', { ms: 1600 });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 500 });
    const taskId = created['taskId'] as string;
    expect(taskId).toMatch(/^[\w-]{43}$/);
    expect(await alice.get(taskId)).toMatchObject({ taskId, status: 'working', resultType: 'complete' });
    await eventually(async () => expect(await alice.get(taskId)).toMatchObject({ statusMessage: 'halfway' }), 5000);
    const done = await settled(alice, taskId);
    expect(done['status']).toBe('completed');
    expect(textOf(done['result'])).toMatch(/^waited 1600 ms for [\da-f-]{36}$/);
  });

  it('answers a quick call of a task tool with its result, as it does any call of a client without the extension', async () => {
    expect(textOf(await as('alice').call('wait_for', { ms: 10 }))).toMatch(/^waited 10 ms/);
    const client = await connectClient(app.url, '2026-07-28', parties.alice);
    expect(textOf(await client.callTool({ name: 'wait_for', arguments: { ms: 900 } }))).toMatch(/^waited 900 ms/);
    // A tool that runs only as a task is refused to that client, naming the extension (-32021).
    expect(await refusal(client.callTool({ name: 'break_later', arguments: { ms: 0 } }))).toBe(-32021);
    await client.close();
    expect(await refusal(as('alice', {}).get('any'))).toBe(-32021);
  });

  it('cancels a running task, and acknowledges a second cancellation', async () => {
    const alice = as('alice');
    const { taskId } = (await alice.call('wait_for', { ms: 60_000 })) as { taskId: string };
    expect(await alice.cancel(taskId)).toEqual({ resultType: 'complete', _meta: expect.anything() });
    expect(await alice.get(taskId)).toMatchObject({ status: 'cancelled' });
    expect(await alice.cancel(taskId)).toMatchObject({ resultType: 'complete' });
    expect(await alice.get(taskId)).not.toHaveProperty('result');
  });

  it('counts the tasks this instance runs in mcp_tasks_open, a parked one included, until they end', async () => {
    const tasksOpen = async () =>
      valueOf(parsePrometheus(await (await fetch(new URL('/metrics', app.url), { headers: bearer(METRICS_TOKEN) })).text()), 'mcp_tasks_open');
    const before = await tasksOpen();
    const alice = as('alice');
    const { taskId: waiting } = (await alice.call('wait_for', { ms: 60_000 })) as { taskId: string };
    const { taskId: asking } = (await alice.call('ask_name')) as { taskId: string };
    await settled(alice, asking, 'input_required');
    expect(await tasksOpen()).toBe(before + 2);
    await alice.cancel(waiting);
    await alice.cancel(asking);
    await eventually(async () => expect(await tasksOpen()).toBe(before), 5000);
  });

  it('parks a task that asks for input, and resumes it with the answer', async () => {
    const alice = as('alice');
    const { taskId } = (await alice.call('ask_name')) as { taskId: string };
    const waiting = await settled(alice, taskId, 'input_required');
    expect(waiting['status']).toBe('input_required');
    const [[key, request]] = Object.entries(waiting['inputRequests'] as Record<string, unknown>);
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Your name?' } });
    // An answer the request cannot take is refused, naming what is wrong; one to a request never made is ignored.
    const refused = (inputResponses: Record<string, unknown>) => alice.update(taskId, inputResponses).catch((error: Error) => error.message);
    expect(await refused({ [key!]: { action: 'maybe' } })).toMatch(
      /^The answer to input request "input-[\w-]+" is refused: "action" must be one of accept, decline, cancel$/,
    );
    expect(await refused({ [key!]: { action: 'accept', content: { name: 42 } } })).toMatch(/refused: argument "name" must be string$/);
    expect(await alice.update(taskId, { 'never-asked': { action: 'accept' } })).toMatchObject({ resultType: 'complete' });
    expect(await alice.get(taskId)).toMatchObject({ status: 'input_required', inputRequests: { [key!]: request } });
    expect(await alice.update(taskId, { [key!]: { action: 'accept', content: { name: 'Ada' } } })).toMatchObject({ resultType: 'complete' });
    expect(textOf((await settled(alice, taskId))['result'])).toBe('Hello, Ada');
  });

  it('ends a task failed, with a JSON-RPC error and no result, when the tool breaks inside the server', async () => {
    const alice = as('alice');
    const { taskId } = (await alice.call('break_later', { ms: 800 })) as { taskId: string };
    const failed = await settled(alice, taskId);
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringMatching(/^Internal error \(request id /) } });
    expect(failed).not.toHaveProperty('result');
  });

  it('ends failed a task whose result is larger than MCP_TASK_MAX_RESULT_BYTES, saying so', async () => {
    const alice = as('alice');
    const { taskId } = (await alice.call('answer_much', { bytes: 8000 })) as { taskId: string };
    expect(await settled(alice, taskId)).toMatchObject({ status: 'failed', error: { message: expect.stringContaining('MCP_TASK_MAX_RESULT_BYTES=4096') } });
  });

  it('keeps an ended task for MCP_TASK_TTL, and deletes it once past it; a running one stays', async () => {
    const shortLived = await startApp({ ...ENV, MCP_TASK_TTL: '2' }, { imports: [TaskToolsModule] });
    try {
      const alice = tasksClient(shortLived.url, bearer(await cliToken(shortLived, ENV, '--sub', 'alice')));
      const ended = await alice.call('wait_for', { ms: 700 });
      const running = await alice.call('wait_for', { ms: 60_000 });
      expect(ended).toMatchObject({ resultType: 'task', ttlMs: 2000 });
      await settled(alice, ended['taskId'] as string);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await alice.get(ended['taskId'] as string)).toMatchObject({ status: 'completed' });
      expect(await shortLived.app.get(McpTasks).purgeExpired()).toBe(1);
      expect(await refusal(alice.get(ended['taskId'] as string))).toBe(-32602);
      expect(await alice.get(running['taskId'] as string)).toMatchObject({ status: 'working' });
    } finally {
      await shortLived.close();
    }
  });

  it('holds a user to MCP_MAX_TASKS_PER_USER tasks in progress', async () => {
    const bob = as('bob');
    const running = await Promise.all([1, 2, 3].map(() => bob.call('wait_for', { ms: 60_000 })));
    const over = await bob.call('wait_for', { ms: 60_000 });
    expect(over).toMatchObject({ isError: true });
    expect(textOf(over)).toMatch(/^You have 3 tasks in progress, the most allowed \(MCP_MAX_TASKS_PER_USER\)/);
    await bob.cancel(running[0]!['taskId'] as string);
    expect(await bob.call('wait_for', { ms: 60_000 })).toMatchObject({ resultType: 'task' });
    await Promise.all(running.slice(1).map((task) => bob.cancel(task['taskId'] as string)));
  });

  it('reads a file whose text is still being extracted once it is: as a task for a client with the extension, at once without', async () => {
    const token = parties.alice.authorization!.slice('Bearer '.length);
    const upload = await uploadFile(app, token, 'scan.txt', 'early text', { type: 'text/plain' });
    expect(upload.status).toBe(201);
    const fileKey = upload.body['fileKey'] as string;
    // As while a long scan's OCR runs: the row exists, its text does not yet.
    const rows = app.app.get(DataSource);
    await rows.query(`UPDATE files SET extraction_status = 'pending', extracted_text = NULL WHERE file_key = $1`, [fileKey]);

    const at = Date.now();
    const without = await as('alice', {}).call('read_file', { file_key: fileKey });
    expect(Date.now() - at).toBeLessThan(1000);
    expect(without['structuredContent']).toMatchObject({ filename: 'scan.txt', note: expect.stringContaining('extraction: pending') });

    const alice = as('alice');
    const created = await alice.call('read_file', { file_key: fileKey });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    await rows.query(`UPDATE files SET extraction_status = 'done', extracted_text = 'the text, at last' WHERE file_key = $1`, [fileKey]);
    const done = await settled(alice, created['taskId'] as string);
    expect(done['result']).toMatchObject({ structuredContent: { filename: 'scan.txt', content: 'the text, at last' } });
  });

  it.each([
    ['a number', { taskId: 42 }],
    ['an empty string', { taskId: '' }],
    ['missing', {}],
  ])('refuses a taskId that is %s with -32602 naming it', async (_what, params) => {
    const error = await tasksRequest(app.url, parties.alice, 'tasks/get', params).then(
      () => undefined,
      (thrown: JsonRpcFailure) => thrown,
    );
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining('taskId') });
  });

  describe("one caller's task is nobody else's", () => {
    let taskId: string;
    beforeAll(async () => {
      taskId = ((await as('alice').call('ask_name')) as { taskId: string }).taskId;
      await settled(as('alice'), taskId, 'input_required');
    });

    it.each(['bob', 'anonymous'] as const)('%s gets, answers and cancels it as an unknown task (-32602)', async (who) => {
      const other = as(who);
      expect(await refusal(other.get(taskId))).toBe(-32602);
      expect(await refusal(other.update(taskId, { any: { action: 'decline' } }))).toBe(-32602);
      expect(await refusal(other.cancel(taskId))).toBe(-32602);
      expect(await as('alice').get(taskId)).toMatchObject({ status: 'input_required' });
    });

    it.each([
      ['another case', () => taskId.toUpperCase()],
      ['a prefix', () => taskId.slice(0, 20)],
      ['surrounding spaces', () => ` ${taskId} `],
      ['its first character percent-encoded', () => `%${taskId.charCodeAt(0).toString(16).toUpperCase()}${taskId.slice(1)}`],
    ])('an id spelled with %s is unknown', async (_how, spelled) => {
      expect(await refusal(as('alice').get(spelled()))).toBe(-32602);
    });
  });
});
