import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, cliToken, signHs256, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { ERAS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

/** Hostile input answers 4xx naming what was wrong, never 500 (findings 9, 10, 11, 17, 18). */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' };
const echo = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });

let running: RunningApp;
let jwt: string;
let api: URL;

beforeAll(async () => {
  running = await startApp(ENV);
  jwt = await cliToken(running, ENV, '--sub', 'hostile');
  api = new URL('/api/mcp-secrets', running.url);
});

afterAll(async () => {
  await running.close();
});

const createSecret = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }, token = jwt) =>
  fetch(api, { method: 'POST', headers: { ...bearer(token), ...headers }, body });

describe('finding 9: NUL characters and out-of-range dates', () => {
  it.each([
    ['label', { label: 'a\u0000b' }],
    ['agent', { label: 'ok', agent: 'a\u0000b' }],
    ['expiresAt', { label: 'ok', expiresAt: '+275760-09-13T00:00:00Z' }],
    ['expiresAt', { label: 'ok', expiresAt: '+010000-01-01T00:00:00Z' }],
  ])('a bad %s answers 400 naming it', async (field, body) => {
    const response = await createSecret(JSON.stringify(body));
    expect(response.status).toBe(400);
    // The validation pipe's 400 names each bad field in `fields`.
    expect(Object.keys((await response.json()).fields)).toEqual([field]);
  });

  it.each([
    ['sub', { sub: 'a\u0000b' }],
    ['email', { sub: 'nul-email', email: 'a\u0000@example.com' }],
    ['name', { sub: 'nul-name', name: 'a\u0000b' }],
    ['sub', { sub: 'cut \ud83d' }],
    ['name', { sub: 'cut-name', name: 'Ann \ude00' }],
  ])('a JWT whose %s holds a NUL or half a surrogate pair answers 400 naming it, on /api and /mcp', async (claim, claims) => {
    const token = await signHs256(TEST_JWT_SECRET, claims);
    const onApi = await fetch(api, { headers: bearer(token) });
    expect(onApi.status).toBe(400);
    expect((await onApi.json()).message).toContain(`"${claim}"`);
    const onMcp = await postRaw(running.url, echo, { ...JSON_HEADERS, ...bearer(token) });
    expect(onMcp.status).toBe(400);
    expect(onMcp.text).toContain(`"${claim}`);
  });
});

describe('NUL characters in text the database would store or search', () => {
  const NUL_PROBLEM = 'must not contain the NUL character (U+0000), which the database cannot store';

  it.each([
    ['POST', '/api/memories', { text: 'a\u0000b' }, 'text'],
    ['GET', '/api/memories?q=a%00b', undefined, 'q'],
    ['GET', '/api/fhir/Observation?code=a%00b', undefined, 'code'],
    ['DELETE', '/api/conversations/a%00b', undefined, 'conversationId'],
    ['GET', '/admin/users?q=a%00b', undefined, 'q'],
  ])('%s %s answers 400 naming the field, for a user and for an admin; 401 without a credential', async (method, target, body, field) => {
    const admin = await signHs256(TEST_JWT_SECRET, { sub: 'nul-admin', roles: ['admin'] });
    const send = (credential: Record<string, string>) =>
      fetch(new URL(target, running.url), {
        method,
        headers: { ...credential, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    const expectedForUser = target.startsWith('/admin') ? 403 : 400;
    const [asUser, asAdmin, anonymous] = [await send(bearer(jwt)), await send(bearer(admin)), await send({})];
    expect([asUser.status, asAdmin.status, anonymous.status]).toEqual([expectedForUser, 400, 401]);
    expect(await asAdmin.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: `Invalid request: ${field}: ${NUL_PROBLEM}`,
      fields: { [field]: NUL_PROBLEM },
    });
  });

  it.each(ERAS)('tools given a NUL answer an error result naming the argument, not "Internal error" (%s)', async (era) => {
    const calls: [string, Record<string, unknown>, string][] = [
      ['remember', { text: 'a\u0000b' }, 'text'],
      ['recall_memory', { query: 'a\u0000b' }, 'query'],
      ['family_health', { code: 'a\u0000b' }, 'code'],
      ['summarize_conversation', { summary: 'a\u0000b' }, 'summary'],
    ];
    await withClient(running.url, era, { ...bearer(jwt), 'x-conversation-id': 'nul-conversation' }, async (client) => {
      for (const [name, args, argument] of calls) {
        const result = await client.callTool({ name, arguments: args });
        expect({ name, isError: result.isError, content: result.content }).toEqual({
          name,
          isError: true,
          content: [{ type: 'text', text: `Invalid arguments for tool "${name}": argument "${argument}" ${NUL_PROBLEM}` }],
        });
      }
      // The same text without the NUL is stored and found: the refusal is about the character only.
      expect((await client.callTool({ name: 'remember', arguments: { text: 'ab' } })).isError).toBeFalsy();
    });
  });
});

describe('dates at the edges of the calendar, on the embedded database as on PostgreSQL', () => {
  const weight = {
    resourceType: 'Observation',
    status: 'final',
    code: { coding: [{ system: 'http://loinc.org', code: '29463-7', display: 'Body weight' }] },
    valueQuantity: { value: 81.5, unit: 'kg' },
    effectiveDateTime: '2026-01-03T00:00:00Z',
  };

  beforeAll(async () => {
    const stored = await fetch(new URL('/api/fhir/Observation', running.url), {
      method: 'POST',
      headers: { ...bearer(jwt), 'content-type': 'application/json' },
      body: JSON.stringify(weight),
    });
    expect(stored.status).toBe(201);
  });

  it.each([
    ['date=ge0000-01-01', 1],
    ['date=9999-12-31', 0],
    ['date=0000', 0],
    ['date=lt0000-06', 0],
  ])('GET /api/fhir/Observation?%s answers a search set of %i', async (query, total) => {
    const response = await fetch(new URL(`/api/fhir/Observation?${query}`, running.url), { headers: bearer(jwt) });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ resourceType: 'Bundle', type: 'searchset', total });
  });

  it.each(ERAS)('family_health since the year 0000 finds the reading, not "Internal error" (%s)', async (era) => {
    await withClient(running.url, era, bearer(jwt), async (client) => {
      const result = await client.callTool({ name: 'family_health', arguments: { since: '0000-01-01' } });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.structuredContent)).toContain('29463-7');
    });
  });
});

describe('null is a value, not a left-out property', () => {
  const send = (method: string, target: string, body: unknown) =>
    fetch(new URL(target, running.url), { method, headers: { ...bearer(jwt), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = async <T>(response: Response) => (await response.json()) as T;

  it('an optional property sent as null answers 400 naming it, on real resources of the caller', async () => {
    const { memory } = await json<{ memory: { id: string } }>(await send('POST', '/api/memories', { text: 'null probe' }));
    const circle = await json<{ id: string }>(await send('POST', '/api/circles', { name: 'Null probe' }));
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['PATCH', `/api/memories/${memory.id}`, { text: null, kind: 'fact' }, 'text'],
      ['PATCH', `/api/memories/${memory.id}`, { kind: null }, 'kind'],
      ['POST', '/api/memories', { text: 'with a null kind', kind: null }, 'kind'],
      ['POST', '/api/mcp-secrets', { label: 'laptop', agent: null }, 'agent'],
      ['POST', '/api/mcp-secrets', { label: 'laptop', expiresAt: null }, 'expiresAt'],
      ['POST', `/api/circles/${circle.id}/invitations`, { email: 'null@example.com', role: null }, 'role'],
      ['PATCH', `/api/circles/${circle.id}/members/me`, { health_access: null }, 'health_access'],
      ['PATCH', `/api/circles/${circle.id}/members/me`, { status: null }, 'status'],
    ];
    for (const [method, target, body, field] of cases) {
      const response = await send(method, target, body);
      const answer = await json<{ fields?: Record<string, string> }>(response);
      expect({ method, target, body, status: response.status, fields: Object.keys(answer.fields ?? {}) }).toEqual({
        method,
        target,
        body,
        status: 400,
        fields: [field],
      });
    }
    // Where null means something, it still does: a nickname is cleared with it.
    expect((await send('PATCH', `/api/circles/${circle.id}/members/me`, { nickname: 'Mum' })).status).toBe(200);
    const cleared = await send('PATCH', `/api/circles/${circle.id}/members/me`, { nickname: null });
    expect({ status: cleared.status, nickname: (await json<{ nickname: unknown }>(cleared)).nickname }).toEqual({ status: 200, nickname: null });
  });

  it('a required property left out is named by its type, not by a later check', async () => {
    const response = await send('POST', '/api/mcp-secrets', {});
    expect((await json<{ fields: Record<string, string> }>(response)).fields).toEqual({ label: 'label must be a string' });
    const repeated = await fetch(new URL('/api/memories?limit=1&limit=2', running.url), { headers: bearer(jwt) });
    expect((await json<{ fields: Record<string, string> }>(repeated)).fields).toEqual({ limit: 'limit must be an integer number' });
  });
});

describe('every documented route, given hostile values, answers below 500', () => {
  const PATH_VALUES = ['%00', 'a%00b', '0000', '-1', '00000000-0000-0000-0000-000000000000', 'a'.repeat(100), '%E2%82%AC', "'"];
  const QUERY_VALUES = ['%00', 'a%00b', '-1', 'abc', '0', '1e3', '99999999999999999999', '0000', 'ge0000-01-01', '9999-12-31', 'a'.repeat(3000)];
  const BODIES = ['{"text":"a\\u0000b","label":"a\\u0000b","name":"a\\u0000b","summary":"a\\u0000b"}', '[]', 'null', '{"a":', '"text"', '{}'];

  type Operation = { method: string; path: string; query: string[]; hasBody: boolean; bodyProperties: string[] };
  let operations: Operation[];

  beforeAll(async () => {
    type Schema = { $ref?: string; properties?: Record<string, unknown> };
    const document = (await (await fetch(new URL('/openapi.json', running.url))).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
      components: { schemas: Record<string, Schema> };
    };
    const propertiesOf = (schema: Schema | undefined) =>
      Object.keys((schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema)?.properties ?? {});
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        query: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        hasBody: operation.requestBody !== undefined,
        bodyProperties: propertiesOf(operation.requestBody?.content?.['application/json']?.schema),
      })),
    );
  });

  /** Each request `operation` is tried with, as `[target, body]`: the bodies above, and its documented properties all null. */
  function attempts({ method, path, query, hasBody, bodyProperties }: Operation): [string, string | undefined][] {
    const targets = path.includes('{') ? PATH_VALUES.map((value) => path.replace(/\{[^}]+\}/g, value)) : [path];
    const withQueries = targets.flatMap((target) => [target, ...query.flatMap((name) => QUERY_VALUES.map((value) => `${target}?${name}=${value}`))]);
    const allNull = bodyProperties.length ? [JSON.stringify(Object.fromEntries(bodyProperties.map((name) => [name, null])))] : [];
    return withQueries.flatMap((target): [string, string | undefined][] =>
      hasBody || method !== 'GET' ? [...BODIES, ...allNull].map((body): [string, string | undefined] => [target, body]) : [[target, undefined]],
    );
  }

  it.each([
    ['anonymous', undefined],
    ['a user', { sub: 'hostile-routes-user' }],
    ['an admin', { sub: 'hostile-routes-admin', roles: ['admin'] }],
  ])(
    'as %s',
    async (_party, claims) => {
      const credential = claims ? bearer(await signHs256(TEST_JWT_SECRET, claims)) : {};
      const failures: string[] = [];
      let sent = 0;
      for (const operation of operations) {
        for (const [target, body] of attempts(operation)) {
          const headers = { ...credential, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
          const response = await fetch(new URL(target, running.url), { method: operation.method, headers, body });
          await response.arrayBuffer();
          sent++;
          if (response.status >= 500) failures.push(`${response.status} ${operation.method} ${target.slice(0, 120)} ${body ?? ''}`);
        }
      }
      expect(sent).toBeGreaterThan(1000);
      expect(failures).toEqual([]);
    },
    300_000,
  );
});

describe('finding 10: malformed bodies on /api', () => {
  it('malformed JSON answers 400, with and without a credential', async () => {
    expect((await createSecret('{"label":')).status).toBe(400);
    expect((await fetch(api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"label":' })).status).toBe(400);
  });

  it('an empty body sent as application/json is no body: a DELETE or a body-less POST works, a route that needs one names what is missing', async () => {
    const json = { ...bearer(jwt), 'content-type': 'application/json' };
    const send = (method: string, target: string) => fetch(new URL(target, running.url), { method, headers: json, body: '' });
    const created = (await (
      await fetch(new URL('/api/memories', running.url), { method: 'POST', headers: json, body: '{"text":"empty-body probe"}' })
    ).json()) as {
      memory: { id: string };
    };
    expect((await send('DELETE', `/api/memories/${created.memory.id}`)).status).toBe(204);
    const circle = (await (await fetch(new URL('/api/circles', running.url), { method: 'POST', headers: json, body: '{"name":"Empty body"}' })).json()) as {
      id: string;
    };
    expect((await send('POST', `/api/circles/${circle.id}/leave`)).status).toBe(204);
    const needsBody = await send('POST', '/api/memories');
    expect({ status: needsBody.status, fields: ((await needsBody.json()) as { fields: object }).fields }).toEqual({
      status: 400,
      fields: { text: 'text must be a string' },
    });
  });

  it('an unsupported content type answers 415, with and without a credential', async () => {
    expect((await createSecret('label=x', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await fetch(api, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<x/>' })).status).toBe(415);
  });
});

describe('a body over BODY_LIMIT_BYTES', () => {
  it('is 413 naming the limit and its key, as a JSON-RPC error on /mcp and as a REST error on /api; one under it is read', async () => {
    const env = { ...ENV, BODY_LIMIT_BYTES: '2048' };
    const small = await startApp(env);
    try {
      const token = await cliToken(small, env, '--sub', 'body-limit');
      const callWith = (text: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
      const message = 'Request body is larger than 2048 bytes (BODY_LIMIT_BYTES)';
      const onMcp = await postRaw(small.url, callWith('x'.repeat(3000)));
      expect({ status: onMcp.status, body: onMcp.json() }).toEqual({ status: 413, body: { jsonrpc: '2.0', error: { code: -32000, message }, id: null } });
      expect((await postRaw(small.url, callWith('x'.repeat(1500)))).status).toBe(200);
      const onApi = await fetch(new URL('/api/memories', small.url), {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'x'.repeat(3000) }),
      });
      expect({ status: onApi.status, body: await onApi.json() }).toEqual({ status: 413, body: { statusCode: 413, error: 'Payload Too Large', message } });
    } finally {
      await small.close();
    }
  });

  it('a Content-Type that is not one media type is 415 saying so, on /mcp and /api', async () => {
    const headers = { ...bearer(jwt), 'content-type': 'application/json, text/plain' };
    const onMcp = await postRaw(running.url, echo, { ...JSON_HEADERS, ...headers });
    expect({ status: onMcp.status, message: onMcp.json().error.message }).toEqual({
      status: 415,
      message: 'Content-Type "application/json, text/plain" is not one media type: send application/json',
    });
    const onApi = await fetch(api, { method: 'POST', headers, body: '{}' });
    expect(onApi.status).toBe(415);
    expect(((await onApi.json()) as { message: string }).message).toContain('is not one media type');
  });
});

describe('finding 11: deeply nested JSON', () => {
  const deepArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('refuses a body nested deeper than 64 levels with 400, on /mcp and /api', async () => {
    const deep = deepArrays(100_000);
    const onMcp = await postRaw(running.url, deep);
    expect(onMcp.status).toBe(400);
    expect(onMcp.text).toContain('nested deeper than 64');
    const params = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":${'['.repeat(70)}${']'.repeat(70)}}}}`;
    expect((await postRaw(running.url, params)).status).toBe(400);
    expect((await createSecret(`{"label":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`)).status).toBe(400);
  });

  it('refuses a FHIR body nested that deep with 400 too (it overflowed the stack: 500)', async () => {
    const observation = `{"resourceType":"Observation","status":"final","code":{"text":"x"},"extension":${deepArrays(100_000)}}`;
    const response = await fetch(new URL('/api/fhir/Observation', running.url), {
      method: 'POST',
      headers: { ...bearer(jwt), 'content-type': 'application/fhir+json' },
      body: observation,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ message: 'JSON body nested deeper than 64 levels' });
  });

  it('accepts nesting up to the limit', async () => {
    const nested = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","extra":${'['.repeat(50)}${']'.repeat(50)}}}}`;
    // Reaches the tool's argument check (unknown argument), not the nesting limit.
    expect((await postRaw(running.url, nested)).text).not.toContain('nested deeper');
  });
});

describe('finding 17: the answer carrying a new secret', () => {
  it('is never cached', async () => {
    const response = await createSecret(JSON.stringify({ label: 'fresh' }));
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('finding 18: secret errors', () => {
  it('say the same for an unknown, a revoked and an expired secret', async () => {
    const unknown = await postRaw(running.url, echo, { ...JSON_HEADERS, ...bearer('mrb_sk_unknown') });
    const { id, secret } = (await (await createSecret(JSON.stringify({ label: 'to revoke' }))).json()) as { id: string; secret: string };
    await fetch(new URL(`/api/mcp-secrets/${id}`, running.url), { method: 'DELETE', headers: bearer(jwt) });
    const revoked = await postRaw(running.url, echo, { ...JSON_HEADERS, ...bearer(secret) });
    expect([unknown.status, revoked.status]).toEqual([401, 401]);
    expect(revoked.json().error.message).toBe(unknown.json().error.message);
  });
});

describe("targets Fastify's router refuses", () => {
  it.each([
    ['POST', '/mcp/%ff'],
    ['POST', '/mcp/mrb_sk_abc%ff'],
    ['GET', '/api/files/%c3'],
    ['DELETE', '/api/mcp-secrets/%e0%80'],
  ])('%s %s answers 400 naming the bad component, with a request id, with and without a credential', async (method, target) => {
    for (const credential of [bearer(jwt), {}]) {
      const headers = { ...credential, 'content-type': 'application/json' };
      const response = await fetch(new URL(target, running.url), { method, headers, body: method === 'POST' ? echo : undefined });
      expect(response.status).toBe(400);
      expect(response.headers.get('x-request-id')).toMatch(/^[\da-f-]{36}$/);
      const error = { error: 'Bad Request', code: 'FST_ERR_BAD_URL', message: `'${target}' is not a valid url component`, statusCode: 400 };
      expect(await response.json()).toEqual(error);
    }
  });

  it('a route parameter longer than 100 characters answers 414, with a request id', async () => {
    const target = `/mcp/${'a'.repeat(150)}`;
    const response = await fetch(new URL(target, running.url), { method: 'POST', headers: JSON_HEADERS, body: echo });
    expect(response.status).toBe(414);
    expect(response.headers.get('x-request-id')).toMatch(/^[\da-f-]{36}$/);
    expect(await response.json()).toMatchObject({ error: 'URI Too Long', code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414 });
  });
});
