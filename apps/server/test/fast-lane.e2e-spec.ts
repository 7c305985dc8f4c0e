import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { request } from 'node:http';
import { signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { McpHttpService } from '@app/mcp';
import { DifferentialToolsModule, invocations, TypedArrayToolModule } from './support/differential-tools.module.js';
import {
  call,
  corpus,
  corpus2026,
  corpusSessions,
  corpusTasks,
  in2026,
  inSession,
  NEVER_ON_LANE,
  rpc,
  sessionOf,
  taskOf,
  type Exchange,
  type SessionRole,
  type TaskState,
} from './support/fast-lane-corpus.js';
import { eventually } from './support/files.js';
import { TaskToolsModule } from './support/task-tools.module.js';
import { tasksRequest } from './support/tasks-wire.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * The fast lane is proven equal, not assumed: one corpus goes to an app with the lane and to one
 * without it (every request through the SDK), and both must give the same status, content type
 * and JSON body. Requests the lane does not take fall through to the SDK, so they match too.
 */
// Rate limits stay on (they run before the lane), high enough for the corpus on every revision.
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '100000', RATE_LIMIT_ANONYMOUS_REQUESTS: '100000' };
const BOTH = 'application/json, text/event-stream';

interface Answer {
  status: number;
  contentType?: string;
  body: unknown;
  requestId?: string;
  sessionId?: string;
}

/** Per app, the ids of the sessions and tasks it made for itself, by the placeholder (`sessionOf`, `taskOf`) the corpus puts in headers and bodies. */
const sessionIds = new Map<URL, Record<string, string>>();

/** node:http rather than fetch: fetch adds an Accept header and refuses some spellings. */
function send(url: URL, { body, headers = {} }: Exchange): Promise<Answer> {
  for (const [placeholder, id] of Object.entries(sessionIds.get(url) ?? {})) body = body.replaceAll(placeholder, id);
  const sent: Record<string, string> = { 'content-type': 'application/json', accept: BOTH };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete sent[name];
    else sent[name] = sessionIds.get(url)?.[value] ?? value;
  }
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers: sent }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = text === '' ? '' : JSON.parse(text);
        } catch {
          // an SSE body stays text, and is compared as such
        }
        resolve({
          status: response.statusCode!,
          contentType: response.headers['content-type'],
          body: parsed,
          requestId: response.headers['x-request-id'] as string,
          sessionId: response.headers['mcp-session-id'] as string | undefined,
        });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

let lane: RunningApp;
let sdk: RunningApp;
/** The same pair with a tool whose output schema is an array. */
let typedLane: RunningApp;
let typedSdk: RunningApp;
let token: string;

beforeAll(async () => {
  const typed = { imports: [DifferentialToolsModule, TypedArrayToolModule] };
  [lane, sdk, typedLane, typedSdk] = await Promise.all([
    startApp(ENV, { imports: [DifferentialToolsModule, TaskToolsModule] }),
    startApp({ ...ENV, MCP_FAST_LANE: 'false' }, { imports: [DifferentialToolsModule, TaskToolsModule] }),
    startApp(ENV, typed),
    startApp({ ...ENV, MCP_FAST_LANE: 'false' }, typed),
  ]);
  token = await signHs256(TEST_JWT_SECRET, { sub: 'differential-user', email: 'diff@example.com' });
}, 90_000);

afterAll(async () => {
  await Promise.all([lane, sdk, typedLane, typedSdk].map((app) => app?.close()));
});

/** Opens, on each app, an anonymous session, one for the JWT's user, and one answered with JSON bodies (`initialize` without Accept). */
async function openSessions(apps: RunningApp[], token: string): Promise<void> {
  const initialize = rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'differential', version: '1.0.0' } });
  const initialized = rpc(undefined, 'notifications/initialized');
  for (const { url } of apps) {
    const ids: Record<string, string> = {};
    for (const [role, headers] of [
      ['anonymous', {}],
      ['user', { authorization: `Bearer ${token}` }],
      ['json', { accept: undefined }],
    ] as [SessionRole, Record<string, string | undefined>][]) {
      const opened = await send(url, { body: initialize, headers });
      expect(opened.status).toBe(200);
      ids[sessionOf(role)] = opened.sessionId!;
      expect((await send(url, { body: initialized, headers: { ...headers, 'mcp-session-id': opened.sessionId! } })).status).toBe(202);
    }
    sessionIds.set(url, ids);
  }
}

/** Makes, on each app, a task of the JWT's user in each state, and records their ids by `taskOf`. */
async function makeTasks(apps: RunningApp[], token: string): Promise<void> {
  const party = { authorization: `Bearer ${token}` };
  const calls: Record<TaskState, [string, Record<string, unknown>]> = {
    working: ['wait_for', { ms: 600_000 }],
    completed: ['wait_for', { ms: 600 }],
    failed: ['break_later', { ms: 600 }],
    input_required: ['ask_name', {}],
  };
  for (const { url } of apps) {
    const ids = sessionIds.get(url) ?? {};
    for (const [state, [name, args]] of Object.entries(calls)) {
      const { taskId } = (await tasksRequest(url, party, 'tools/call', { name, arguments: args })) as { taskId: string };
      ids[taskOf(state as TaskState)] = taskId;
      await eventually(async () => expect(await tasksRequest(url, party, 'tasks/get', { taskId })).toMatchObject({ status: state }), 5000);
    }
    sessionIds.set(url, ids);
  }
}

/**
 * Sends each exchange to the lane app and to the SDK-only app; returns the differences (status,
 * content type, body, and a tool run twice) and the labels the lane answered on its own.
 */
async function compare(cases: [string, Exchange][]): Promise<{ mismatches: string[]; tookLane: string[] }> {
  const mismatches: string[] = [];
  const tookLane: string[] = [];
  const fastLane = (lane.app.get(McpHttpService) as unknown as { fastLane: object }).fastLane;
  // Taken by the lane: served (not `undefined`) and not handed to the SDK with its result.
  const served = jest.spyOn(fastLane as { serve: (...args: unknown[]) => unknown }, 'serve');
  const handedOver = jest.spyOn(fastLane as { handOver: (...args: unknown[]) => unknown }, 'handOver');
  try {
    for (const [label, exchange] of cases) {
      const before = new Map(invocations);
      served.mockClear();
      handedOver.mockClear();
      const fast = await send(lane.url, exchange);
      if (served.mock.results.some((result) => result.value !== undefined) && handedOver.mock.calls.length === 0) tookLane.push(label);
      const ranOnLane = diff(before, invocations);
      const slow = await send(sdk.url, exchange);
      const ranOnSdk = diff(before, invocations);
      // An unexpected error's text names a request id of its own on each side, and each app has its own session ids.
      const comparable = (body: unknown, url: URL) => {
        let text = JSON.stringify(body)
          .replace(/request id [0-9a-f-]{36}/g, 'request id <id>')
          // Each app's tasks were made at their own times and asked with keys of their own.
          .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
          .replace(/input-[\w-]{12}/g, 'input-<key>')
          // The JWT's subject is a user of its own in each app's database.
          .replace(/(waited \d+ ms for )[\da-f-]{36}/g, '$1<user>');
        for (const [role, id] of Object.entries(sessionIds.get(url) ?? {})) text = text.replaceAll(id, role);
        return text;
      };
      const same = fast.status === slow.status && fast.contentType === slow.contentType && comparable(fast.body, lane.url) === comparable(slow.body, sdk.url);
      if (!same)
        mismatches.push(
          `${label}:\n  lane ${fast.status} ${fast.contentType} ${JSON.stringify(fast.body).slice(0, 400)}\n  sdk  ${slow.status} ${slow.contentType} ${JSON.stringify(slow.body).slice(0, 400)}`,
        );
      // Each app ran the tool at most once for this request (a result handed to the SDK is not run again).
      if (ranOnLane > 1 || ranOnSdk - ranOnLane > 1)
        mismatches.push(`${label}: the tool ran ${ranOnLane} time(s) on the lane app, ${ranOnSdk - ranOnLane} on the SDK app`);
    }
  } finally {
    served.mockRestore();
    handedOver.mockRestore();
  }
  return { mismatches, tookLane };
}

describe('the fast lane answers exactly as the SDK path does', () => {
  it('for every request of the corpus, session-less on 2025: same status, content type and JSON body', async () => {
    const { mismatches, tookLane } = await compare(corpus(token));
    expect(mismatches).toEqual([]);
    // Not a vacuous proof: the common requests did take the lane, and what it must not take did not.
    expect(tookLane).toEqual(
      expect.arrayContaining([
        'ping id 1',
        'tools/list',
        'tools/call echo',
        'tools/call diff_string',
        'tools/call diff_fail',
        'tools/call diff_throw',
        'tools/call bad arguments',
        'echo with a JWT',
        'whoami-style tool with a JWT',
        'echo with Accept undefined',
      ]),
    );
    for (const label of NEVER_ON_LANE) expect(tookLane).not.toContain(label);
  }, 120_000);

  it('for the corpus on 2026-07-28 (envelope and standard headers), and what only 2026 has', async () => {
    await makeTasks([lane, sdk], token);
    const cases: [string, Exchange][] = [
      ...corpus(token).map(([label, exchange]): [string, Exchange] => [label, in2026(exchange)]),
      ...corpus2026(),
      ...corpusTasks(),
    ];
    for (const [, exchange] of cases) if (exchange.headers?.authorization === 'Bearer <token>') exchange.headers.authorization = `Bearer ${token}`;
    const { mismatches, tookLane } = await compare(cases);
    expect(mismatches).toEqual([]);
    expect(tookLane).toEqual(
      expect.arrayContaining([
        'tools/list',
        'tools/call echo',
        'tools/call diff_string',
        'tools/call diff_fail',
        'tools/call diff_throw',
        'tools/call bad arguments',
        'echo with a JWT',
        'whoami-style tool with a JWT',
        'echo with Accept undefined',
        '2026: echo with client info and a log level',
        '2026: echo with a foreign _meta key',
        '2026: echo with a JWT',
        'tasks: tasks/get of a task working',
        'tasks: tasks/get of a task completed',
        'tasks: tasks/get of a task failed',
        'tasks: tasks/get of a task input_required',
      ]),
    );
    for (const label of [
      ...NEVER_ON_LANE,
      'ping id 1',
      '2026: echo without Mcp-Name',
      '2026: echo with a Base64 Mcp-Name',
      '2026: echo naming another tool in Mcp-Name',
      '2026: echo without Mcp-Method',
      '2026: echo with requestState',
      'tasks: tasks/get without the extension',
      'tasks: tasks/get with the extension null',
      'tasks: tasks/get with Mcp-Name naming another task',
      'tasks: tasks/get without Mcp-Name',
      'tasks: tasks/get with an extra param',
      'tasks: tasks/get with a numeric taskId',
      'tasks: tasks/get with an empty taskId',
      'tasks: tasks/get with a progress token',
    ]) {
      expect(tookLane).not.toContain(label);
    }
  }, 120_000);

  it('for the corpus inside live 2025 sessions, each bound to its caller, and what only sessions have', async () => {
    await openSessions([lane, sdk], token);
    const cases: [string, Exchange][] = [
      ...corpus(token).map(([label, exchange]): [string, Exchange] => [label, inSession(exchange)]),
      ...corpusSessions(token),
    ];
    const { mismatches, tookLane } = await compare(cases);
    expect(mismatches).toEqual([]);
    expect(tookLane).toEqual(
      expect.arrayContaining([
        'ping id 1',
        'tools/list',
        'tools/call echo',
        'tools/call diff_fail',
        'tools/call diff_throw',
        'echo with a JWT',
        'whoami-style tool with a JWT',
        'session: a JSON session, echo',
        'session: a JSON session, ping',
      ]),
    );
    for (const label of [
      ...NEVER_ON_LANE,
      "session: the user's session used anonymously",
      'session: an anonymous session used with a JWT',
      'session: an unknown session id',
    ]) {
      expect(tookLane).not.toContain(label);
    }
  }, 120_000);

  it('with a non-object output schema too: tools/list (rewritten by the SDK) and its results', async () => {
    for (const body of [rpc(1, 'tools/list'), call('diff_typed_array', {}), call('echo', { text: 't' })]) {
      // On 2026-07-28 the codec leaves the schema as it is, and the lane serves the list itself.
      for (const exchange of [{ body }, in2026({ body })]) {
        const [fast, slow] = await Promise.all([send(typedLane.url, exchange), send(typedSdk.url, exchange)]);
        expect(fast).toEqual({ ...slow, requestId: fast.requestId });
      }
    }
  });

  it('fixes ok([1]) under an array output schema: wrapped once, not twice', async () => {
    for (const app of [typedLane, typedSdk]) {
      const answer = (await send(app.url, { body: call('diff_typed_array', {}) })).body as { result: { structuredContent: unknown } };
      expect(answer.result.structuredContent).toEqual({ result: [1] });
    }
  });

  it('keeps concurrent callers apart: each gets its own answer, its own id, its own identity', async () => {
    const other = await signHs256(TEST_JWT_SECRET, { sub: 'differential-other', email: 'other@example.com' });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        send(lane.url, {
          body: call(index % 2 ? 'diff_who' : 'echo', { ...(index % 2 ? {} : { text: `c${index}` }) }, 7),
          headers: { authorization: `Bearer ${index % 4 === 1 ? other : token}` },
        }),
      ),
    );
    answers.forEach((answer, index) => {
      const result = (answer.body as { id: number; result: { structuredContent: Record<string, unknown> } }).result.structuredContent;
      expect((answer.body as { id: number }).id).toBe(7);
      if (index % 2 === 0) expect(result).toEqual({ echo: `c${index}` });
      else expect(result.email).toBe(index % 4 === 1 ? 'other@example.com' : 'diff@example.com');
    });
    expect(new Set(answers.map((answer) => answer.requestId)).size).toBe(answers.length);
  });

  it('still challenges an anonymous call of a tool that acts for a user (401 with Bearer)', async () => {
    const answer = await send(lane.url, { body: call('diff_who', {}) });
    expect(answer.status).toBe(401);
  });
});

function diff(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [name, count] of after) total += count - (before.get(name) ?? 0);
  return total;
}
