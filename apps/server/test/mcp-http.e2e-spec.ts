import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { bearer, cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

const SHARED_SECRET = 'a-session-signing-key-of-at-least-32-chars';
const call = (id: number | string, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** fetch() refuses to send a Host header of our choosing; node:http does, as a rebinding page's browser would. */
function statusWithHostHeader(url: URL, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers: { ...JSON_HEADERS, host } }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    outgoing.on('error', reject);
    outgoing.end(call(1, 'echo', { text: 'x' }));
  });
}

// fetch() always sends an Accept header (a bare wildcard); node:http sends none unless told.
function postWithAccept(url: URL, body: string, accept: string | undefined): Promise<{ status: number; contentType?: string; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) };
    const outgoing = request(url, { method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, contentType: response.headers['content-type'], text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

let first: RunningApp;
let second: RunningApp;

beforeAll(async () => {
  first = await startApp({ MCP_SESSION_SECRET: SHARED_SECRET });
  second = await startApp({ MCP_SESSION_SECRET: SHARED_SECRET });
});

afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
});

describe('the /mcp endpoint answers protocol errors as the spec says', () => {
  it('malformed JSON: 400 with parse error -32700', async () => {
    const response = await postRaw(first.url, '{"jsonrpc":"2.0",');
    expect(response.status).toBe(400);
    expect(response.json().error.code).toBe(-32700);
  });

  it.each(['text/plain', 'application/octet-stream'])('wrong content type (%s): 415', async (contentType) => {
    // application/octet-stream bodies are left unread for the files lib's raw upload route; /mcp still refuses them.
    const response = await postRaw(first.url, call(1, 'echo', { text: 'x' }), { ...JSON_HEADERS, 'content-type': contentType });
    expect(response.status).toBe(415);
  });

  it.each([
    ['no Accept header (as node:http sends)', undefined],
    ['Accept: */* (as curl sends)', '*/*'],
    ['Accept: text/html, */*;q=0.8', 'text/html, */*;q=0.8'],
    ['Accept: application/json (a plain HTTP client)', 'application/json'],
    ['Accept: Application/JSON; charset=utf-8', 'Application/JSON; charset=utf-8'],
  ])('%s: answered as JSON', async (_label, accept) => {
    const response = await postWithAccept(first.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), accept);
    expect(response.status).toBe(200);
    expect(response.contentType).toBe('application/json');
    expect(JSON.parse(response.text).result.tools.map((tool: { name: string }) => tool.name)).toContain('echo');
  });

  it.each([
    ['without Accept', undefined],
    ['with Accept: application/json', 'application/json'],
  ])('an initialize %s opens a session that answers with JSON bodies', async (_label, accept) => {
    const opened = await postWithAccept(first.url, initialize, accept);
    expect(opened.status).toBe(200);
    expect(opened.contentType).toBe('application/json');
    expect(JSON.parse(opened.text).result.serverInfo.name).toBeDefined();
  });

  it.each(['text/event-stream', 'text/html', 'application/xml, text/*', 'application/json;q=0, text/html'])(
    'an Accept that leaves out JSON (%s): 406',
    async (accept) => {
      const response = await postRaw(first.url, call(1, 'echo', { text: 'x' }), { 'content-type': 'application/json', accept });
      expect(response.status).toBe(406);
    },
  );

  it('a body that starts with a byte order mark is routed like any other (the SDK would parse it past our checks)', async () => {
    const withMark = (body: string) => `\uFEFF${body}`;
    const anonymousAuthTool = await postRaw(first.url, withMark(call(1, 'my_email', {})));
    expect(anonymousAuthTool.status).toBe(401);
    expect(anonymousAuthTool.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const plain = await postRaw(first.url, call(2, 'echo', { text: 'x' }));
    const marked = await postRaw(first.url, withMark(call(2, 'echo', { text: 'x' })));
    expect({ status: marked.status, type: marked.headers.get('content-type'), body: marked.json() }).toEqual({
      status: plain.status,
      type: plain.headers.get('content-type'),
      body: plain.json(),
    });
    const opened = await postWithAccept(first.url, withMark(initialize), undefined);
    expect(opened.contentType).toBe('application/json');
  });

  it('/mcp/ (a trailing slash) is the endpoint itself, for anonymous callers and with a JWT alike', async () => {
    const env = { JWT_SECRET: TEST_JWT_SECRET };
    const running = await startApp(env);
    try {
      const token = await cliToken(running, env, '--sub', 'slash-user');
      for (const path of ['/mcp', '/mcp/']) {
        const url = new URL(path, running.url);
        const anonymous = await postRaw(url, call(1, 'echo', { text: 'x' }));
        expect({ path, status: anonymous.status, text: anonymous.json().result.content[0].text }).toEqual({ path, status: 200, text: '{"echo":"x"}' });
        const withJwt = await postRaw(url, call(2, 'my_email', {}), { ...JSON_HEADERS, ...bearer(token) });
        expect({ path, status: withJwt.status, isError: withJwt.json().result.isError }).toEqual({ path, status: 200, isError: undefined });
        expect((await postRaw(url, call(3, 'my_email', {}))).status).toBe(401);
      }
    } finally {
      await running.close();
    }
  });

  it('unknown method: -32601', async () => {
    const response = await postRaw(first.url, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/frobnicate' }));
    expect(response.json()).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('unknown tool and invalid params: -32602', async () => {
    expect((await postRaw(first.url, call(8, 'nope', {}))).json()).toMatchObject({ id: 8, error: { code: -32602 } });
    const noName = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { arguments: {} } });
    expect((await postRaw(first.url, noName)).json()).toMatchObject({ id: 9, error: { code: -32602 } });
  });

  it('a notification: 202 without a body', async () => {
    const response = await postRaw(first.url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(response.status).toBe(202);
    expect(response.text).toBe('');
  });

  it('an auth tool called without credentials: 401 with a Bearer challenge', async () => {
    const response = await postRaw(first.url, call(1, 'my_email', {}));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('an unknown session: 404', async () => {
    const response = await postRaw(first.url, call(1, 'echo', { text: 'x' }), { ...JSON_HEADERS, 'mcp-session-id': 'forged.session' });
    expect(response.status).toBe(404);
  });

  it('a foreign Host or Origin on a loopback bind: 403 (DNS rebinding)', async () => {
    expect(await statusWithHostHeader(first.url, 'evil.example')).toBe(403);
    const origin = await postRaw(first.url, call(1, 'echo', { text: 'x' }), { ...JSON_HEADERS, origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    const local = await postRaw(first.url, call(1, 'echo', { text: 'x' }), { ...JSON_HEADERS, origin: 'http://localhost:3000' });
    expect(local.status).toBe(200);
  });

  it('keeps concurrent callers apart even when their request ids collide', async () => {
    const texts = Array.from({ length: 40 }, (_, index) => `caller-${index}`);
    const answers = await Promise.all(texts.map((text) => postRaw(first.url, call(1, 'echo', { text }))));
    expect(answers.map((answer) => answer.json().result.structuredContent.echo)).toEqual(texts);
    expect(answers.every((answer) => answer.json().id === 1)).toBe(true);
  });
});

describe('a wildcard bind (finding 16)', () => {
  it('keeps the DNS-rebinding check on: loopback names pass, a foreign Host gets 403', async () => {
    const wildcard = await startApp({ HOST: '0.0.0.0' });
    try {
      expect(await statusWithHostHeader(wildcard.url, 'evil.example')).toBe(403);
      expect(await statusWithHostHeader(wildcard.url, `localhost:${wildcard.url.port}`)).toBe(200);
      expect(await statusWithHostHeader(wildcard.url, `127.0.0.1:${wildcard.url.port}`)).toBe(200);
    } finally {
      await wildcard.close();
    }
  });
});

describe('2025 sessions behind a load balancer without affinity', () => {
  let sessionId: string;
  const inSession = () => ({ ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });

  beforeAll(async () => {
    const response = await postRaw(first.url, initialize);
    expect(response.status).toBe(200);
    sessionId = response.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
  });

  it('serves tools/list and tools/call for the session on the instance that opened it', async () => {
    const response = await postRaw(first.url, call(2, 'echo', { text: 'home' }), inSession());
    expect(response.text).toContain('{\\"echo\\":\\"home\\"}');
  });

  it('serves them on another instance sharing the signing key', async () => {
    const listed = await postRaw(second.url, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), inSession());
    expect(listed.status).toBe(200);
    expect(listed.json().result.tools.map((tool: { name: string }) => tool.name)).toContain('echo');
    const called = await postRaw(second.url, call(4, 'echo', { text: 'away' }), inSession());
    expect(called.json().result.structuredContent).toEqual({ echo: 'away' });
  });

  it('answers 404 once the session was deleted', async () => {
    const deleted = await fetch(first.url, { method: 'DELETE', headers: inSession() });
    expect(deleted.status).toBe(200);
    const after = await postRaw(first.url, call(5, 'echo', { text: 'gone' }), inSession());
    expect(after.status).toBe(404);
  });
});

describe('session limits', () => {
  let limited: RunningApp;

  beforeAll(async () => {
    limited = await startApp({ MCP_MAX_SESSIONS: '2' });
  });

  afterAll(async () => {
    await limited.close();
  });

  it('closes the least recently used session beyond the maximum count', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await postRaw(limited.url, initialize)).headers.get('mcp-session-id')!);
    const headers = (id: string) => ({ ...JSON_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
    expect((await postRaw(limited.url, call(1, 'echo', { text: 'x' }), headers(ids[0]))).status).toBe(404);
    expect((await postRaw(limited.url, call(1, 'echo', { text: 'x' }), headers(ids[2]))).status).toBe(200);
  });
});

describe('per-caller session quota, anonymous sessions evicted first (finding 7)', () => {
  const ENV = {
    JWT_SECRET: TEST_JWT_SECRET,
    MCP_MAX_SESSIONS: '4',
    MCP_MAX_SESSIONS_PER_CALLER: '3',
    RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
    RATE_LIMIT_REQUESTS: '0',
  };
  let limited: RunningApp;
  const inSession = (id: string, party: Record<string, string> = {}) => ({
    ...JSON_HEADERS,
    ...party,
    'mcp-session-id': id,
    'mcp-protocol-version': '2025-06-18',
  });

  beforeAll(async () => {
    limited = await startApp(ENV);
  });

  afterAll(async () => {
    await limited.close();
  });

  it('answers 429 past the quota of an address, and a flood of anonymous sessions never evicts a user’s', async () => {
    const [alice, bob] = await Promise.all(['alice', 'bob'].map(async (sub) => bearer(await cliToken(limited, ENV, '--sub', sub))));
    const aliceSession = (await postRaw(limited.url, initialize, { ...JSON_HEADERS, ...alice! })).headers.get('mcp-session-id')!;
    const anonymous = [];
    for (let index = 0; index < 4; index++) anonymous.push(await postRaw(limited.url, initialize));
    expect(anonymous.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    // Bob's session goes beyond MCP_MAX_SESSIONS: the oldest anonymous session makes room, not Alice's.
    const bobSession = (await postRaw(limited.url, initialize, { ...JSON_HEADERS, ...bob! })).headers.get('mcp-session-id')!;
    expect((await postRaw(limited.url, call(1, 'echo', { text: 'a' }), inSession(aliceSession, alice))).status).toBe(200);
    expect((await postRaw(limited.url, call(1, 'echo', { text: 'b' }), inSession(bobSession, bob))).status).toBe(200);
    const oldestAnonymous = anonymous[0]!.headers.get('mcp-session-id')!;
    expect((await postRaw(limited.url, call(1, 'echo', { text: 'x' }), inSession(oldestAnonymous))).status).toBe(404);
  });
});
