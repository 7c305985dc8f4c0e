/**
 * The requests the fast lane's differential test (`fast-lane.e2e-spec.ts`) sends to an app with the
 * lane and to one without it: every id type, missing and extra fields, `_meta`, unknown tools, bad
 * and unknown arguments, tool errors and thrown errors, results of every shape, each protocol
 * version header, Accept and Content-Type variants, authenticated and anonymous callers; then the
 * same corpus on the 2026-07-28 revision and inside live 2025 sessions, with what only those have.
 */
export interface Exchange {
  body: string;
  headers?: Record<string, string | undefined>;
}

/** Stands, in a header, for the id of a session each app opened for itself (the spec's `openSessions`). */
export type SessionRole = 'anonymous' | 'user' | 'json';
export const sessionOf = (role: SessionRole) => `<${role} session>`;

export const rpc = (id: unknown, method: string, params?: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, ...(params === undefined ? {} : { params }), ...extra });
export const call = (name: unknown, args?: unknown, id: unknown = 1) => rpc(id, 'tools/call', args === undefined ? { name } : { name, arguments: args });

/** The session-less 2025 corpus; `token` is a JWT the apps accept. */
export function corpus(token: string): [string, Exchange][] {
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

/** What `_meta` a 2026-07-28 client sends with every request. */
export const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/**
 * The same exchange on the 2026-07-28 revision, as an SDK client sends it: the envelope in
 * `_meta`, `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`) `Mcp-Name`. Headers the
 * exchange sets itself win, so its variants become mismatches the SDK refuses.
 */
export function in2026({ body, headers = {} }: Exchange): Exchange {
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
export function corpus2026(): [string, Exchange][] {
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

/** The states of the tasks each app makes for itself before the 2026 corpus (`taskOf` stands for one's id). */
export type TaskState = 'working' | 'completed' | 'failed' | 'input_required';
export const taskOf = (state: TaskState) => `<${state} task>`;

/** `tasks/get`, which a polling client sends most, by the JWT's user unless `headers` say otherwise. */
export function corpusTasks(): [string, Exchange][] {
  const withTasks = { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
  const get = (
    taskId: unknown,
    headers: Record<string, string | undefined> = {},
    meta: Record<string, unknown> = withTasks,
    extra: Record<string, unknown> = {},
  ) => ({
    body: rpc(1, 'tasks/get', { taskId, ...extra, _meta: meta }),
    headers: {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tasks/get',
      ...(typeof taskId === 'string' ? { 'mcp-name': taskId } : {}),
      authorization: 'Bearer <token>',
      ...headers,
    },
  });
  return [
    ...(['working', 'completed', 'failed', 'input_required'] as TaskState[]).map((state): [string, Exchange] => [
      `tasks: tasks/get of a task ${state}`,
      get(taskOf(state)),
    ]),
    ['tasks: tasks/get of an unknown task', get('no-such-task')],
    ["tasks: tasks/get of the user's task, anonymously", get(taskOf('working'), { authorization: undefined })],
    ['tasks: tasks/get without the extension', get(taskOf('working'), {}, ENVELOPE)],
    [
      'tasks: tasks/get with the extension null',
      get(taskOf('working'), {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': null } } }),
    ],
    ['tasks: tasks/get with Mcp-Name naming another task', get(taskOf('working'), { 'mcp-name': taskOf('completed') })],
    ['tasks: tasks/get without Mcp-Name', get(taskOf('working'), { 'mcp-name': undefined })],
    ['tasks: tasks/get with an extra param', get(taskOf('working'), {}, withTasks, { cursor: 'x' })],
    ['tasks: tasks/get with a numeric taskId', get(5)],
    ['tasks: tasks/get with an empty taskId', get('')],
    ['tasks: tasks/get with a progress token', get(taskOf('working'), {}, { ...withTasks, progressToken: 1 })],
  ];
}

/** A 2025 exchange inside a session the app opened: for the JWT's user when the exchange carries it, else anonymous. */
export function inSession({ body, headers = {} }: Exchange, role?: SessionRole): Exchange {
  const owner = role ?? (headers.authorization?.startsWith('Bearer ey') ? 'user' : 'anonymous');
  return { body, headers: { 'mcp-session-id': sessionOf(owner), 'mcp-protocol-version': '2025-11-25', ...headers } };
}

/** Exchanges only sessions have: a session of another caller, one answered with JSON, stale and foreign ids. */
export function corpusSessions(token: string): [string, Exchange][] {
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

/** Requests the lane must leave to the SDK on every revision, so the proof covers the hand-over and the fall-through too. */
export const NEVER_ON_LANE = [
  'tools/call diff_content',
  'tools/call diff_instance',
  'tools/call diff_proto',
  'tools/call a context tool',
  'tools/call with a progress token',
  'tools/list with a cursor',
];
