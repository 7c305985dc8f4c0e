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
// Rate limits stay on (they run before the lane), high enough for the corpus on every revision.
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '100000', RATE_LIMIT_ANONYMOUS_REQUESTS: '100000' };
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
  sessionId?: string;
}

/** Stands, in a header, for the id of a session each app opened for itself (see `openSessions`). */
type SessionRole = 'anonymous' | 'user' | 'json';
const sessionOf = (role: SessionRole) => `<${role} session>`;
const sessionIds = new Map<URL, Record<string, string>>();

/** node:http rather than fetch: fetch adds an Accept header and refuses some spellings. */
function send(url: URL, { body, headers = {} }: Exchange): Promise<Answer> {
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
  for (const name of [
    'diff_string',
    'diff_array',
    'diff_number',
    'diff_nothing',
    'diff_content',
    'diff_instance',
    'diff_proto',
    'diff_date',
    'diff_fail',
    'diff_throw',
    'diff_ask',
  ]) {
    add(`tools/call ${name}`, call(name, name === 'diff_string' ? { text: 'x' } : {}));
  }
  add('tools/call echo', call('echo', { text: 'hi' }));
  add('tools/call echo, unicode', call('echo', { text: 'héllo 世界 🌍 \u2028' }));
  add('tools/call big', call('diff_big', { size: 5000 }));
  add('tools/call without arguments', call('diff_array'));
  add('tools/call with arguments null', call('diff_array', null));
  add('tools/call with arguments an array', call('diff_array', []));
  add('tools/call with arguments a string', call('diff_array', 'x'));
  add(
    'tools/call with an own __proto__ argument',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diff_args","arguments":{"count":1,"__proto__":{"x":1}}}}',
  );
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
  add('a 2026 envelope', rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'v' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }), {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
  });
  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2026-07-28', 'bogus', ' 2025-11-25']) {
    add(`echo with MCP-Protocol-Version ${JSON.stringify(version)}`, call('echo', { text: 'v' }), { 'mcp-protocol-version': version });
    add(`tools/list with MCP-Protocol-Version ${JSON.stringify(version)}`, rpc(1, 'tools/list'), { 'mcp-protocol-version': version });
  }
  for (const accept of [
    undefined,
    '*/*',
    'application/json',
    'text/event-stream',
    'text/html',
    'application/json,text/event-stream;q=0.5',
    'TEXT/EVENT-STREAM, APPLICATION/JSON',
  ]) {
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

/** What `_meta` a 2026-07-28 client sends with every request. */
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/**
 * The same exchange on the 2026-07-28 revision, as an SDK client sends it: the envelope in
 * `_meta`, `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`) `Mcp-Name`. Headers the
 * exchange sets itself win, so its variants become mismatches the SDK refuses.
 */
function in2026({ body, headers = {} }: Exchange): Exchange {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return { body, headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', ...headers } };
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return { body, headers: { 'mcp-protocol-version': '2026-07-28', ...headers } };
  const request = message as { method?: unknown; params?: unknown };
  const params = request.params;
  const withEnvelope = params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params));
  const own = (params ?? {}) as { _meta?: Record<string, unknown>; name?: unknown };
  const sent = withEnvelope ? { ...request, params: { ...own, _meta: { ...own._meta, ...ENVELOPE } } } : request;
  const standard: Record<string, string> = { 'mcp-protocol-version': '2026-07-28' };
  if (typeof request.method === 'string') standard['mcp-method'] = request.method;
  if (request.method === 'tools/call' && typeof own.name === 'string') standard['mcp-name'] = own.name;
  return { body: JSON.stringify(sent), headers: { ...standard, ...headers } };
}

/** Exchanges only the 2026-07-28 revision has: its headers, its envelope, its methods. */
function corpus2026(): [string, Exchange][] {
  const echo = (meta: Record<string, unknown>, headers: Record<string, string | undefined> = {}, params: Record<string, unknown> = {}) => ({
    body: rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'm' }, ...params, _meta: meta }),
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo', ...headers },
  });
  return [
    ['2026: echo without Mcp-Name', echo(ENVELOPE, { 'mcp-name': undefined })],
    ['2026: echo naming another tool in Mcp-Name', echo(ENVELOPE, { 'mcp-name': 'diff_args' })],
    ['2026: echo with blanks around Mcp-Name', echo(ENVELOPE, { 'mcp-name': ' echo ' })],
    ['2026: echo with a Base64 Mcp-Name', echo(ENVELOPE, { 'mcp-name': '=?base64?ZWNobw==?=' })],
    ['2026: echo with a bad Base64 Mcp-Name', echo(ENVELOPE, { 'mcp-name': '=?base64?***?=' })],
    ['2026: echo without Mcp-Method', echo(ENVELOPE, { 'mcp-method': undefined })],
    ['2026: echo with Mcp-Method tools/list', echo(ENVELOPE, { 'mcp-method': 'tools/list' })],
    ['2026: echo with blanks around Mcp-Method', echo(ENVELOPE, { 'mcp-method': ' tools/call ' })],
    ['2026: echo without MCP-Protocol-Version', echo(ENVELOPE, { 'mcp-protocol-version': undefined })],
    ['2026: echo with MCP-Protocol-Version 2025-11-25', echo(ENVELOPE, { 'mcp-protocol-version': '2025-11-25' })],
    ['2026: echo with an envelope naming 2025-11-25', echo({ ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' })],
    [
      '2026: echo with an envelope naming 2027-01-01',
      echo({ ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' }, { 'mcp-protocol-version': '2027-01-01' }),
    ],
    ['2026: echo without client capabilities', echo({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' })],
    ['2026: echo with client capabilities not an object', echo({ ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 'all' })],
    [
      '2026: echo with client info and a log level',
      echo({ ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' }, 'io.modelcontextprotocol/logLevel': 'debug' }),
    ],
    ['2026: echo with a bad log level', echo({ ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'loud' })],
    ['2026: echo with bad client info', echo({ ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 1 } })],
    ['2026: echo with another reserved _meta key', echo({ ...ENVELOPE, 'io.modelcontextprotocol/related-task': { taskId: 5 } })],
    ['2026: echo with a foreign _meta key', echo({ ...ENVELOPE, trace: 'x' })],
    ['2026: echo with a progress token', echo({ ...ENVELOPE, progressToken: 'p' })],
    ['2026: echo with requestState', echo(ENVELOPE, {}, { requestState: 'opaque' })],
    ['2026: echo with inputResponses', echo(ENVELOPE, {}, { inputResponses: { user_name: { action: 'cancel' } } })],
    ['2026: echo with a session id', echo(ENVELOPE, { 'mcp-session-id': 'some.session.id' })],
    ['2026: echo with a JWT', echo(ENVELOPE, { authorization: 'Bearer <token>' })],
    ['2026: echo, Content-Type text/plain', echo(ENVELOPE, { 'content-type': 'text/plain' })],
    [
      '2026: server/discover',
      { body: rpc(1, 'server/discover', { _meta: ENVELOPE }), headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' } },
    ],
    ['2026: initialize', { body: rpc(1, 'initialize', { _meta: ENVELOPE }), headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'initialize' } }],
  ];
}

/** A 2025 exchange inside a session the app opened: for the JWT's user when the exchange carries it, else anonymous. */
function inSession({ body, headers = {} }: Exchange, role?: SessionRole): Exchange {
  const owner = role ?? (headers.authorization?.startsWith('Bearer ey') ? 'user' : 'anonymous');
  return { body, headers: { 'mcp-session-id': sessionOf(owner), 'mcp-protocol-version': '2025-11-25', ...headers } };
}

/** Exchanges only sessions have: a session of another caller, one answered with JSON, stale and foreign ids. */
function corpusSessions(token: string): [string, Exchange][] {
  const echo = call('echo', { text: 's' });
  return [
    ["session: the user's session used anonymously", { body: echo, headers: { 'mcp-session-id': sessionOf('user') } }],
    ['session: an anonymous session used with a JWT', { body: echo, headers: { 'mcp-session-id': sessionOf('anonymous'), authorization: `Bearer ${token}` } }],
    ['session: a JSON session, echo', inSession({ body: echo }, 'json')],
    ['session: a JSON session, tools/list', inSession({ body: rpc(2, 'tools/list') }, 'json')],
    ['session: a JSON session, ping', inSession({ body: rpc('p', 'ping') }, 'json')],
    ['session: a JSON session, content blocks', inSession({ body: call('diff_content', {}) }, 'json')],
    ['session: a JSON session, Accept unstated', inSession({ body: echo, headers: { accept: undefined } }, 'json')],
    ['session: echo without MCP-Protocol-Version', { body: echo, headers: { 'mcp-session-id': sessionOf('anonymous') } }],
    ['session: echo with MCP-Protocol-Version 2024-11-05', inSession({ body: echo, headers: { 'mcp-protocol-version': '2024-11-05' } })],
    ['session: echo, Content-Type text/plain', inSession({ body: echo, headers: { 'content-type': 'text/plain' } })],
    ['session: echo, id 2^53', inSession({ body: call('echo', { text: 's' }, 2 ** 53) })],
    ['session: an unknown session id', { body: echo, headers: { 'mcp-session-id': 'unknown' } }],
    [
      'session: initialize again',
      inSession({ body: rpc(9, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }) }),
    ],
    ['session: a 2026 envelope', inSession(in2026({ body: echo }))],
  ];
}

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
        let text = JSON.stringify(body).replace(/request id [0-9a-f-]{36}/g, 'request id <id>');
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

/** Requests the lane must leave to the SDK on every revision, so the proof covers the hand-over and the fall-through too. */
const NEVER_ON_LANE = [
  'tools/call diff_content',
  'tools/call diff_instance',
  'tools/call diff_proto',
  'tools/call a context tool',
  'tools/call with a progress token',
  'tools/list with a cursor',
];

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
    const cases: [string, Exchange][] = [...corpus(token).map(([label, exchange]): [string, Exchange] => [label, in2026(exchange)]), ...corpus2026()];
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
