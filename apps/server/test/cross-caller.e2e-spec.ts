import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { bearer, cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { openExchange, type Message } from './support/raw-http.js';
import { describeNeeding } from './support/services.js';
import { createTestDatabase, postgresService, SHARED_DATABASE_SERVER_URL, type TestDatabase } from './support/test-database.js';
import { CONFORMANCE_TOOLS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

/**
 * Three parties (user A, user B, anonymous) on the session-less path, in a 2025 session, and across
 * two instances sharing MCP_SESSION_SECRET: whatever one posts never touches another's exchange
 * or session. The instances share one PostgreSQL database, as instances behind a load balancer do,
 * so a user is the same user on both.
 */
const ENV = {
  JWT_SECRET: TEST_JWT_SECRET,
  MCP_SESSION_SECRET: 'a-session-signing-key-of-at-least-32-chars',
  MCP_TOOL_DIRS: CONFORMANCE_TOOLS,
  RATE_LIMIT_REQUESTS: '0',
  RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
  // Tokens outlive a session here: the expiry test moves the clock past the session's end, not the token's.
  JWT_MAX_AGE: '3d',
};
const PROTOCOL = { 'mcp-protocol-version': '2025-06-18' };
const sampling = (id: number | string, prompt: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'test_sampling', arguments: { prompt } } });
const echo = (id: number, text: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
const cancel = (requestId: number | string) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'mine now' } });
const answer = (id: number | string, text: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { role: 'assistant', content: { type: 'text', text }, model: 'm' } });
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 'raw', version: '1' } },
});
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), ms).unref())]);
const finalText = (messages: Message[] | 'no answer') =>
  messages === 'no answer' ? messages : (messages.at(-1)?.result?.content?.[0]?.text ?? messages.at(-1));

/** Without PostgreSQL (the instances share a database) these are skipped, saying why; in CI they run. */
const describeWithPostgres = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL));

let database: TestDatabase;
let first: RunningApp;
let second: RunningApp;
const parties: Record<'alice' | 'bob' | 'anonymous', Record<string, string>> = { alice: {}, bob: {}, anonymous: {} };

beforeAll(async () => {
  database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
  first = await startApp({ ...ENV, DATABASE_URL: database.url });
  second = await startApp({ ...ENV, DATABASE_URL: database.url });
  parties.alice = bearer(await cliToken(first, ENV, '--sub', 'alice', '--ttl', '3d'));
  parties.bob = bearer(await cliToken(first, ENV, '--sub', 'bob'));
});

afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
  await database?.drop();
});

/** Alice's sampling call, left waiting for its sampling answer: the exchange and the request it carries. */
async function aliceWaitingForSampling(clientId: number | string) {
  const exchange = openExchange(first.url, sampling(clientId, 'hello'), { ...JSON_HEADERS, ...parties.alice });
  const request = await exchange.next();
  expect(request.method).toBe('sampling/createMessage');
  return { exchange, request };
}

describeWithPostgres('the session-less path (finding 1)', () => {
  it('refuses a cancellation of Alice’s call from Bob or an anonymous caller, and her call still completes', async () => {
    const { exchange, request } = await aliceWaitingForSampling(1);
    // The shared server numbers calls 1, 2, 3...: an attacker would try them all.
    for (const party of [parties.bob, parties.anonymous]) {
      for (const requestId of [1, 2, 3, 4, 5, 6, 7, 8]) {
        expect((await postRaw(first.url, cancel(requestId), { ...JSON_HEADERS, ...party })).status).toBe(404);
      }
    }
    expect((await postRaw(first.url, answer(request.id, 'from alice'), { ...JSON_HEADERS, ...parties.alice })).status).toBe(202);
    expect(finalText(await within(exchange.ended, 5000))).toBe('LLM response: from alice');
  });

  it('refuses a sampling answer from anyone but Alice, even one who learnt its id', async () => {
    const { exchange, request } = await aliceWaitingForSampling('a-1');
    for (const party of [parties.bob, parties.anonymous]) {
      for (const id of [request.id, 0, 1, 2, 3, 4, 5]) {
        expect((await postRaw(first.url, answer(id, 'forged'), { ...JSON_HEADERS, ...party })).status).toBe(404);
      }
    }
    expect((await postRaw(first.url, answer(request.id, 'genuine'), { ...JSON_HEADERS, ...parties.alice })).status).toBe(202);
    expect(finalText(await within(exchange.ended, 5000))).toBe('LLM response: genuine');
  });

  it('sends a server-to-client request under an id nobody could guess', async () => {
    const { exchange, request } = await aliceWaitingForSampling(2);
    expect(String(request.id)).toMatch(/^s-[\w-]{22}$/);
    exchange.abort();
  });

  it('lets Alice cancel her own call by her own id, and answers the cancelled exchange', async () => {
    const { exchange } = await aliceWaitingForSampling(77);
    expect((await postRaw(first.url, cancel(77), { ...JSON_HEADERS, ...parties.alice })).status).toBe(202);
    const ended = await within(exchange.ended, 5000);
    expect(ended).not.toBe('no answer');
    expect((ended as Message[]).at(-1)).toMatchObject({ id: 77, error: { code: -32800 } });
  });

  it('refuses anonymous cancellations: anonymous callers cannot be told apart, closing the connection cancels', async () => {
    const exchange = openExchange(first.url, sampling(5, 'hi'), JSON_HEADERS);
    await exchange.next();
    expect((await postRaw(first.url, cancel(5), JSON_HEADERS)).status).toBe(404);
    exchange.abort();
  });
});

/** Opens a 2025 session for `party` on `app`; its id. */
async function openSession(app: RunningApp, party: Record<string, string>): Promise<string> {
  const response = await postRaw(app.url, initialize, { ...JSON_HEADERS, ...party });
  expect(response.status).toBe(200);
  return response.headers.get('mcp-session-id')!;
}

async function statuses(app: RunningApp, sessionId: string, party: Record<string, string>) {
  const headers = { ...JSON_HEADERS, ...PROTOCOL, ...party, 'mcp-session-id': sessionId };
  const call = (await postRaw(app.url, echo(3, 'x'), headers)).status;
  const response = (await postRaw(app.url, answer(0, 'forged'), headers)).status;
  const stream = await new Promise<number>((resolve) => {
    const controller = new AbortController();
    fetch(app.url, { headers: { ...headers, accept: 'text/event-stream' }, signal: controller.signal }).then(
      (answered) => {
        controller.abort();
        resolve(answered.status);
      },
      () => resolve(0),
    );
  });
  return { call, response, stream };
}

describeWithPostgres('2025 sessions are bound to the caller who opened them (finding 4)', () => {
  it('answers 404 to Bob and to an anonymous caller in Alice’s session, for calls, answers, streams and DELETE', async () => {
    const sessionId = await openSession(first, parties.alice);
    for (const party of [parties.bob, parties.anonymous]) {
      expect(await statuses(first, sessionId, party)).toEqual({ call: 404, response: 404, stream: 404 });
      const deleted = await fetch(first.url, { method: 'DELETE', headers: { ...PROTOCOL, ...party, 'mcp-session-id': sessionId } });
      expect(deleted.status).toBe(404);
    }
    const own = await postRaw(first.url, echo(4, 'mine'), { ...JSON_HEADERS, ...PROTOCOL, ...parties.alice, 'mcp-session-id': sessionId });
    expect(own.status).toBe(200);
    expect(own.text).toContain('{\\"echo\\":\\"mine\\"}');
  });

  it('answers 404 to Alice and Bob in an anonymous caller’s session', async () => {
    const sessionId = await openSession(first, parties.anonymous);
    for (const party of [parties.alice, parties.bob]) expect((await statuses(first, sessionId, party)).call).toBe(404);
    expect((await statuses(first, sessionId, parties.anonymous)).call).toBe(200);
  });

  it('keeps Alice’s GET stream hers: Bob cannot take it over', async () => {
    const sessionId = await openSession(first, parties.alice);
    const headers = { ...PROTOCOL, accept: 'text/event-stream', 'mcp-session-id': sessionId };
    expect((await fetch(first.url, { headers: { ...headers, ...parties.bob } })).status).toBe(404);
    const controller = new AbortController();
    const own = await fetch(first.url, { headers: { ...headers, ...parties.alice }, signal: controller.signal });
    expect(own.status).toBe(200);
    controller.abort();
  });

  it('on another instance sharing the signing key: Alice is served, Bob and anonymous get 404', async () => {
    const sessionId = await openSession(first, parties.alice);
    const headers = (party: Record<string, string>) => ({ ...JSON_HEADERS, ...PROTOCOL, ...party, 'mcp-session-id': sessionId });
    const own = await postRaw(second.url, echo(5, 'away'), headers(parties.alice));
    expect(own.json().result.structuredContent).toEqual({ echo: 'away' });
    for (const party of [parties.bob, parties.anonymous]) {
      expect((await postRaw(second.url, echo(6, 'x'), headers(party))).status).toBe(404);
      expect((await postRaw(second.url, answer(0, 'forged'), headers(party))).status).toBe(404);
      expect((await fetch(second.url, { headers: { ...PROTOCOL, ...party, accept: 'text/event-stream', 'mcp-session-id': sessionId } })).status).toBe(404);
    }
  });

  it('refuses an id past its signed expiry, on both instances (finding 18)', async () => {
    const sessionId = await openSession(first, parties.alice);
    const headers = { ...JSON_HEADERS, ...PROTOCOL, ...parties.alice, 'mcp-session-id': sessionId };
    expect((await postRaw(second.url, echo(8, 'x'), headers)).status).toBe(200);
    // A day and a minute later (MCP_SESSION_MAX_AGE_SECONDS defaults to a day): only the clock moves.
    const later = Date.now() + 24 * 3600 * 1000 + 60_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => later);
    try {
      expect((await postRaw(second.url, echo(9, 'x'), headers)).status).toBe(404);
      expect((await postRaw(first.url, echo(10, 'x'), headers)).status).toBe(404);
    } finally {
      clock.mockRestore();
    }
  });

  it('refuses an id whose signed expiry was altered (finding 18)', async () => {
    const sessionId = await openSession(first, parties.alice);
    const [nonce, expiry, signature] = sessionId.split('.');
    const extended = `${nonce}.${(parseInt(expiry!, 36) + 1e9).toString(36)}.${signature}`;
    expect((await postRaw(second.url, echo(7, 'x'), { ...JSON_HEADERS, ...PROTOCOL, ...parties.alice, 'mcp-session-id': extended })).status).toBe(404);
  });
});
