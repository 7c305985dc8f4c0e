import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, cliToken, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { ERAS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

/**
 * Text that UTF-8 cannot carry, half a surrogate pair in a JSON string or a body in another
 * encoding, answers 4xx naming it: the drivers would have stored U+FFFD in its place.
 */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' };

let running: RunningApp;
let jwt: string;

beforeAll(async () => {
  running = await startApp(ENV);
  jwt = await cliToken(running, ENV, '--sub', 'encoding');
});

afterAll(async () => {
  await running.close();
});

describe('half of a surrogate pair, which UTF-8 cannot encode (the drivers stored U+FFFD in its place)', () => {
  const UNICODE_PROBLEM = 'is not valid Unicode: it holds half of a surrogate pair (a character such as an emoji cut in two)';
  // JSON.stringify writes a lone surrogate as the escape a client sends, `"\ud83d"`.
  const cut = 'green tea \ud83c';

  it.each([
    ['POST', '/api/memories', { text: cut }, 'text'],
    ['POST', '/api/circles', { name: cut }, 'name'],
    ['POST', '/api/mcp-secrets', { label: cut }, 'label'],
  ])('%s %s answers 400 naming the field, for a user; 401 without a credential', async (method, target, body, field) => {
    const send = (credential: Record<string, string>) =>
      fetch(new URL(target, running.url), { method, headers: { ...credential, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const [asUser, anonymous] = [await send(bearer(jwt)), await send({})];
    expect([asUser.status, anonymous.status]).toEqual([400, 401]);
    expect(await asUser.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: `Invalid request: ${field}: ${UNICODE_PROBLEM}`,
      fields: { [field]: UNICODE_PROBLEM },
    });
  });

  it('a memory is not stored with U+FFFD in place of the cut character; whole pairs are stored as sent', async () => {
    const list = async () =>
      ((await (await fetch(new URL('/api/memories?limit=100', running.url), { headers: bearer(jwt) })).json()) as { items: { text: string }[] }).items.map(
        (item) => item.text,
      );
    const before = await list();
    const post = (text: string) =>
      fetch(new URL('/api/memories', running.url), { method: 'POST', headers: { ...bearer(jwt), ...JSON_HEADERS }, body: JSON.stringify({ text }) });
    expect((await post(cut)).status).toBe(400);
    expect(await list()).toEqual(before);
    expect((await post('green tea \ud83c\udf75')).status).toBe(201);
    expect(await list()).toContain('green tea \ud83c\udf75');
  });

  it.each(ERAS)('tools answer an error result naming the argument (%s)', async (era) => {
    await withClient(running.url, era, bearer(jwt), async (client) => {
      const result = await client.callTool({ name: 'remember', arguments: { text: cut } });
      expect({ isError: result.isError, content: result.content }).toEqual({
        isError: true,
        content: [{ type: 'text', text: `Invalid arguments for tool "remember": argument "text" ${UNICODE_PROBLEM}` }],
      });
      expect((await client.callTool({ name: 'echo', arguments: { text: 'whole \ud83c\udf75' } })).structuredContent).toEqual({ echo: 'whole \ud83c\udf75' });
    });
  });
});

describe('a JSON body that is not UTF-8 (decoded as it came, its bytes were stored as U+FFFD)', () => {
  const NOT_UTF8 = 'Request body is not valid UTF-8, which JSON must be';
  // "café" in Latin-1: 0xE9 starts no UTF-8 sequence here.
  const latin1 = (json: string) => Buffer.from(json, 'latin1');

  it('answers 400 on /api, for a user, and nothing is stored', async () => {
    const body = latin1(JSON.stringify({ text: 'café au lait' }));
    const response = await fetch(new URL('/api/memories', running.url), {
      method: 'POST',
      headers: { ...bearer(jwt), 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ statusCode: 400, message: NOT_UTF8 });
    const listed = (await (await fetch(new URL('/api/memories?q=caf', running.url), { headers: bearer(jwt) })).json()) as { items: unknown[] };
    expect(listed.items).toEqual([]);
  });

  it('answers 400 on the FHIR API (application/fhir+json)', async () => {
    const body = latin1(JSON.stringify({ resourceType: 'Observation', status: 'final', code: { text: 'café' }, valueQuantity: { value: 1, unit: 'kg' } }));
    const response = await fetch(new URL('/api/fhir/Observation', running.url), {
      method: 'POST',
      headers: { ...bearer(jwt), 'content-type': 'application/fhir+json' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ message: NOT_UTF8 });
  });

  it('answers a JSON-RPC parse error with 400 on /mcp, with or without a credential', async () => {
    const call = latin1(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'café' } } }));
    for (const credential of [bearer(jwt), {}]) {
      const response = await fetch(new URL('/mcp', running.url), { method: 'POST', headers: { ...credential, ...JSON_HEADERS }, body: call });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: NOT_UTF8 } });
    }
    // The same call in UTF-8 is served.
    expect((await postRaw(running.url, Buffer.from(call.toString('latin1'), 'utf8').toString())).json().result.structuredContent).toEqual({ echo: 'café' });
  });
});
