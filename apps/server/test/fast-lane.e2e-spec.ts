import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { request } from 'node:http';
import { signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { McpHttpService } from '@app/mcp';
import { DifferentialToolsModule, invocations, TypedArrayToolModule } from './support/differential-tools.module.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * The fast lane is proven equal, not assumed: one corpus goes to an app with the lane and to one
 * without it (every request through the SDK), and both must give the same status, content type
 * and JSON body. Requests the lane does not take fall through to the SDK, so they match too.
 */
const ENV = { JWT_SECRET: TEST_JWT_SECRET };
const BOTH = 'application/json, text/event-stream';

interface Exchange {
  body: string;
  headers?: Record<string, string | undefined>;
}

interface Answer {
  status: number;
  contentType?: string;
  body: unknown;
  requestId?: string;
}

/** node:http rather than fetch: fetch adds an Accept header and refuses some spellings. */
function send(url: URL, { body, headers = {} }: Exchange): Promise<Answer> {
  const sent: Record<string, string> = { 'content-type': 'application/json', accept: BOTH };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete sent[name];
    else sent[name] = value;
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
        resolve({ status: response.statusCode!, contentType: response.headers['content-type'], body: parsed, requestId: response.headers['x-request-id'] as string });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const rpc = (id: unknown, method: string, params?: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, ...(params === undefined ? {} : { params }), ...extra });
const call = (name: unknown, args?: unknown, id: unknown = 1) => rpc(id, 'tools/call', args === undefined ? { name } : { name, arguments: args });

function corpus(token: string): [string, Exchange][] {
  const cases: [string, Exchange][] = [];
  const add = (label: string, body: string, headers?: Exchange['headers']) => cases.push([label, { body, headers }]);
  for (const id of [1, 0, -7, 2 ** 53 - 1, 'abc', '', 'ünï', 1.5, null, true, { a: 1 }]) add(`ping id ${JSON.stringify(id)}`, rpc(id, 'ping'));
  add('ping without id (a notification)', rpc(undefined, 'ping'));
  add('ping with empty params', rpc(3, 'ping', {}));
  add('ping with _meta', rpc(3, 'ping', { _meta: { trace: 'x' } }));
  add('ping with array params', rpc(3, 'ping', [1]));
  add('ping without jsonrpc', JSON.stringify({ id: 3, method: 'ping' }));
  add('ping with jsonrpc 1.0', JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'ping' }));
  add('ping with an extra top-level field', rpc(3, 'ping', undefined, { extra: true }));
  add('tools/list', rpc(1, 'tools/list'));
  add('tools/list id string', rpc('list-1', 'tools/list'));
  add('tools/list with empty params', rpc(1, 'tools/list', {}));
  add('tools/list with a cursor', rpc(1, 'tools/list', { cursor: 'abc' }));
  add('tools/list with a numeric cursor', rpc(1, 'tools/list', { cursor: 5 }));
  add('tools/list with _meta', rpc(1, 'tools/list', { _meta: { progressToken: 1 } }));
  add('tools/list with null params', rpc(1, 'tools/list', null));
  for (const name of ['diff_string', 'diff_array', 'diff_number', 'diff_nothing', 'diff_content', 'diff_instance', 'diff_proto', 'diff_date', 'diff_fail', 'diff_throw', 'diff_ask']) {
    add(`tools/call ${name}`, call(name, name === 'diff_string' ? { text: 'x' } : {}));
  }
  add('tools/call echo', call('echo', { text: 'hi' }));
  add('tools/call echo, unicode', call('echo', { text: 'héllo 世界 🌍 \u2028' }));
  add('tools/call big', call('diff_big', { size: 5000 }));
  add('tools/call without arguments', call('diff_array'));
  add('tools/call with arguments null', call('diff_array', null));
  add('tools/call with arguments an array', call('diff_array', []));
  add('tools/call with arguments a string', call('diff_array', 'x'));
  add('tools/call with an own __proto__ argument', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diff_args","arguments":{"count":1,"__proto__":{"x":1}}}}');
  add('tools/call with name a number', call(5, {}));
  add('tools/call without name', rpc(1, 'tools/call', { arguments: {} }));
  add('tools/call without params', rpc(1, 'tools/call'));
  add('tools/call unknown tool', call('no_such_tool', {}));
  add('tools/call bad arguments', call('diff_args', { count: 'three' }));
  add('tools/call missing argument', call('diff_args', {}));
  add('tools/call unknown argument', call('diff_args', { count: 1, colour: 'red' }));
  add('tools/call good arguments', call('diff_args', { count: 2, label: 'two' }));
  add('tools/call with _meta', rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'm' }, _meta: { trace: 1 } }));
  add('tools/call with a progress token', rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'p' }, _meta: { progressToken: 'p1' } }));
  add('tools/call with an extra params field', rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'e' }, colour: 'red' }));
  add('tools/call with a task field', rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'e' }, task: { ttl: 1000 } }));
  add('tools/call a context tool', call('diff_context', {}));
  add('tools/call id string', call('echo', { text: 's' }, 'call-1'));
  add('tools/call id null', call('echo', { text: 's' }, null));
  add('a batch', `[${call('echo', { text: 'b' })}]`);
  add('a 2026 envelope', rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'v' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' });
  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2026-07-28', 'bogus', ' 2025-11-25']) {
    add(`echo with MCP-Protocol-Version ${JSON.stringify(version)}`, call('echo', { text: 'v' }), { 'mcp-protocol-version': version });
    add(`tools/list with MCP-Protocol-Version ${JSON.stringify(version)}`, rpc(1, 'tools/list'), { 'mcp-protocol-version': version });
  }
  for (const accept of [undefined, '*/*', 'application/json', 'text/event-stream', 'text/html', 'application/json,text/event-stream;q=0.5', 'TEXT/EVENT-STREAM, APPLICATION/JSON']) {
    add(`echo with Accept ${JSON.stringify(accept)}`, call('echo', { text: 'a' }), { accept });
  }
  for (const contentType of ['application/json; charset=utf-8', 'text/plain', undefined]) {
    add(`echo with Content-Type ${JSON.stringify(contentType)}`, call('echo', { text: 'c' }), { 'content-type': contentType });
  }
  add('malformed JSON', '{"jsonrpc":"2.0",');
  add('an empty body', '');
  add('a foreign session id', call('echo', { text: 's' }), { 'mcp-session-id': 'forged.session' });
  add('whoami-style tool, anonymous', call('diff_who', {}));
  add('whoami-style tool with a JWT', call('diff_who', {}), { authorization: `Bearer ${token}` });
  add('whoami-style tool with X-Session-Id', call('diff_who', {}), { authorization: `Bearer ${token}`, 'x-session-id': 'client-session-1' });
  add('echo with a JWT', call('echo', { text: 'j' }), { authorization: `Bearer ${token}` });
  add('echo with a bad JWT', call('echo', { text: 'j' }), { authorization: 'Bearer not.a.token' });
  add('tools/list with a JWT', rpc(1, 'tools/list'), { authorization: `Bearer ${token}` });
  add('a rebinding Origin', call('echo', { text: 'o' }), { origin: 'http://evil.example' });
  return cases;
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
    startApp(ENV, { imports: [DifferentialToolsModule] }),
    startApp({ ...ENV, MCP_FAST_LANE: 'false' }, { imports: [DifferentialToolsModule] }),
    startApp(ENV, typed),
    startApp({ ...ENV, MCP_FAST_LANE: 'false' }, typed),
  ]);
  token = await signHs256(TEST_JWT_SECRET, { sub: 'differential-user', email: 'diff@example.com' });
}, 90_000);

afterAll(async () => {
  await Promise.all([lane, sdk, typedLane, typedSdk].map((app) => app?.close()));
});

describe('the fast lane answers exactly as the SDK path does', () => {
  it('for every request of the corpus: same status, content type and JSON body', async () => {
    const mismatches: string[] = [];
    // The SDK's shared server sees every session-less 2025 request the lane leaves to it.
    const service = lane.app.get(McpHttpService) as unknown as { sharedTransport: { dispatch: (...args: unknown[]) => void } };
    const toSdk = jest.spyOn(service.sharedTransport, 'dispatch');
    const tookLane: string[] = [];
    for (const [label, exchange] of corpus(token)) {
      const before = new Map(invocations);
      toSdk.mockClear();
      const fast = await send(lane.url, exchange);
      if (toSdk.mock.calls.length === 0 && fast.status === 200) tookLane.push(label);
      const ranOnLane = diff(before, invocations);
      const slow = await send(sdk.url, exchange);
      const ranOnSdk = diff(before, invocations);
      // An unexpected error's text names a request id of its own on each side.
      const comparable = (body: unknown) => JSON.stringify(body).replace(/request id [0-9a-f-]{36}/g, 'request id <id>');
      const same = fast.status === slow.status && fast.contentType === slow.contentType && comparable(fast.body) === comparable(slow.body);
      if (!same) mismatches.push(`${label}:\n  lane ${fast.status} ${fast.contentType} ${JSON.stringify(fast.body).slice(0, 400)}\n  sdk  ${slow.status} ${slow.contentType} ${JSON.stringify(slow.body).slice(0, 400)}`);
      // Each app ran the tool at most once for this request (a result handed to the SDK is not run again).
      if (ranOnLane > 1 || ranOnSdk - ranOnLane > 1) mismatches.push(`${label}: the tool ran ${ranOnLane} time(s) on the lane app, ${ranOnSdk - ranOnLane} on the SDK app`);
    }
    expect(mismatches).toEqual([]);
    // Not a vacuous proof: the common requests did take the lane, and what it must not take did not.
    expect(tookLane).toEqual(expect.arrayContaining(['ping id 1', 'tools/list', 'tools/call echo', 'tools/call diff_string', 'tools/call diff_fail', 'tools/call diff_throw', 'tools/call bad arguments', 'echo with a JWT', 'whoami-style tool with a JWT', 'echo with Accept undefined']));
    for (const label of ['tools/call diff_content', 'tools/call diff_instance', 'tools/call diff_proto', 'tools/call a context tool', 'tools/call with a progress token', 'tools/list with a cursor']) expect(tookLane).not.toContain(label);
    toSdk.mockRestore();
  }, 120_000);

  it('with a non-object output schema too: tools/list (rewritten by the SDK) and its results', async () => {
    for (const body of [rpc(1, 'tools/list'), call('diff_typed_array', {}), call('echo', { text: 't' })]) {
      const [fast, slow] = await Promise.all([send(typedLane.url, { body }), send(typedSdk.url, { body })]);
      expect(fast).toEqual({ ...slow, requestId: fast.requestId });
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
        send(lane.url, { body: call(index % 2 ? 'diff_who' : 'echo', { ...(index % 2 ? {} : { text: `c${index}` }) }, 7), headers: { authorization: `Bearer ${index % 4 === 1 ? other : token}` } }),
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
