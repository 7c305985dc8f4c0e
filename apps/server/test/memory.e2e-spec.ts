import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import { UserDataContributors } from '@app/common';
import { bearer, cliToken, structured, TEST_JWT_SECRET, toolError, withClient } from './support/auth.js';
import { jsonCall } from './support/json-call.js';
import { connectClient, ERAS, startApp, type RunningApp } from './support/test-app.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET };

let running: RunningApp;
const tokens: Record<'alice' | 'bob' | 'admin', string> = { alice: '', bob: '', admin: '' };
let aliceId: string;

/** A JSON request to the app, with a bearer token unless `token` is undefined. */
const call = (method: string, path: string, token: string | undefined, body?: unknown) => jsonCall(running, method, path, token, body);

const recallTexts = async (client: Client, query: string, topK?: number) =>
  ((await structured(client, 'recall_memory', { query, ...(topK ? { top_k: topK } : {}) })).memories as { text: string }[]).map((memory) => memory.text);

beforeAll(async () => {
  running = await startApp(ENV);
  tokens.alice = await cliToken(running, ENV, '--sub', 'alice', '--email', 'alice@example.com');
  tokens.bob = await cliToken(running, ENV, '--sub', 'bob', '--email', 'bob@example.com');
  tokens.admin = await cliToken(running, ENV, '--sub', 'root', '--email', 'root@example.com', '--admin');
  await call('GET', '/api/memories', tokens.alice);
  [{ id: aliceId }] = await running.app.get(DataSource).query(`SELECT id FROM users WHERE subject = 'alice'`);
}, 120_000);

afterAll(() => running?.close());

describe('remember and recall_memory over MCP', () => {
  it('are listed with their contract: kind an enum defaulting to fact, top_k 1..50, query as long as the REST q, hints', async () => {
    const tools = await withClient(running.url, '2025-11-25', bearer(tokens.alice), async (client) => (await client.listTools()).tools);
    const remember = tools.find((tool) => tool.name === 'remember')!;
    const recall = tools.find((tool) => tool.name === 'recall_memory')!;
    expect(remember.inputSchema).toMatchObject({ required: ['text'], properties: { kind: { enum: ['fact', 'preference', 'episode'], default: 'fact' } } });
    expect(remember.annotations).toMatchObject({ readOnlyHint: false });
    const restQ = (await call('GET', '/openapi.json', undefined)).body.paths['/api/memories'].get.parameters.find(
      (parameter: { name: string }) => parameter.name === 'q',
    );
    expect(restQ.schema.maxLength).toBe(1000);
    expect(recall.inputSchema).toMatchObject({
      required: ['query'],
      properties: { query: { minLength: 1, maxLength: restQ.schema.maxLength }, top_k: { type: 'integer', minimum: 1, maximum: 50 } },
    });
    expect(recall.annotations).toMatchObject({ readOnlyHint: true });
  });

  it.each(ERAS)('remember, then recall finds it; the same sentence again is deduplicated (revision %s)', async (era) => {
    await withClient(running.url, era, bearer(tokens.alice), async (client) => {
      const stored = await structured(client, 'remember', { text: `My sister in ${era} lives in Valencia and loves sailing.` });
      expect(stored).toEqual({ id: expect.any(String), stored: true, superseded: [], related: expect.any(Array) });
      const recalled = (await structured(client, 'recall_memory', { query: `sister sailing ${era}` })).memories as Record<string, unknown>[];
      expect(recalled[0]).toEqual({
        id: stored.id,
        text: `My sister in ${era} lives in Valencia and loves sailing.`,
        kind: 'fact',
        key: null,
        score: expect.any(Number),
        created_at: expect.any(String),
        valid_from: expect.any(String),
        valid_to: null,
        superseded_by: null,
      });
      expect(recalled[0]!.score).toBeGreaterThan(0);
      expect(recalled[0]!.score).toBeLessThanOrEqual(1);
      const again = await structured(client, 'remember', { text: `  MY SISTER IN ${era} LIVES IN VALENCIA AND LOVES SAILING `, kind: 'preference' });
      expect(again).toEqual({ id: stored.id, stored: true, deduplicated: true, superseded: [], related: expect.any(Array) });
      const wide = await structured(client, 'remember', {
        text: `my sister in ${era} lives in valencia and loves sailing！`.replace('valencia', 'ｖａｌｅｎｃｉａ'),
      });
      expect(wide).toEqual({ id: stored.id, stored: true, deduplicated: true, superseded: [], related: expect.any(Array) });
    });
  });

  it('keeps kinds, refuses an unknown kind naming the allowed ones, and bounds top_k', async () => {
    await withClient(running.url, '2026-07-28', bearer(tokens.alice), async (client) => {
      const { id } = await structured(client, 'remember', { text: 'Prefers tea over coffee in the afternoon', kind: 'preference' });
      expect((await call('GET', `/api/memories/${id}`, tokens.alice)).body.kind).toBe('preference');
      expect(await toolError(client, 'remember', { text: 'x', kind: 'secret' })).toMatch(/fact.*preference.*episode/);
      expect(await toolError(client, 'recall_memory', { query: 'tea', top_k: 51 })).toMatch(/top_k/);
      expect(await recallTexts(client, `${'tea '.repeat(249)}cups`)).toContain('Prefers tea over coffee in the afternoon');
      expect(await toolError(client, 'recall_memory', { query: `${'tea '.repeat(250)}x` })).toMatch(/"query" must NOT have more than 1000 characters/);
      // About 108,000 characters of distinct words: PostgreSQL answered "Internal error" (stack depth exceeded).
      const huge = Array.from({ length: 18_200 }, (_, index) => `w${index.toString(36)}x`).join(' ');
      expect(await toolError(client, 'recall_memory', { query: huge })).toMatch(/"query" must NOT have more than 1000 characters/);
      expect(await toolError(client, 'remember', {})).toMatch(/text/);
    });
  });

  it('finds a Chinese fact by a query of two characters that occur in it', async () => {
    await withClient(running.url, '2025-11-25', bearer(tokens.alice), async (client) => {
      await structured(client, 'remember', { text: '我每天早上喝一杯黑咖啡，不加糖。' });
      expect((await recallTexts(client, '咖啡'))[0]).toBe('我每天早上喝一杯黑咖啡，不加糖。');
    });
  });

  it("never shows one user's memories to another, and refuses the anonymous caller", async () => {
    await withClient(running.url, '2025-11-25', bearer(tokens.alice), (client) =>
      structured(client, 'remember', { text: 'Alice keeps her spare key under the blue flowerpot' }),
    );
    await withClient(running.url, '2026-07-28', bearer(tokens.bob), async (client) => {
      expect(await recallTexts(client, 'spare key blue flowerpot', 50)).toEqual([]);
      await structured(client, 'remember', { text: 'Bob keeps his spare key at the neighbours' });
    });
    await withClient(running.url, '2025-11-25', bearer(tokens.alice), async (client) => {
      expect(await recallTexts(client, 'spare key neighbours', 50)).not.toContain('Bob keeps his spare key at the neighbours');
    });
    const anonymous = await connectClient(running.url, '2025-11-25');
    try {
      // The server answers the call with a 401 challenge, which the client raises.
      await expect(anonymous.callTool({ name: 'remember', arguments: { text: 'anonymous fact' } })).rejects.toThrow('Authentication required');
      await expect(anonymous.callTool({ name: 'recall_memory', arguments: { query: 'key' } })).rejects.toThrow('Authentication required');
    } finally {
      await anonymous.close();
    }
  });
});

describe('/api/memories', () => {
  it('creates, reads, searches, filters, edits, deletes (never recalled again) and exports', async () => {
    const created = await call('POST', '/api/memories', tokens.alice, { text: 'Has a dentist appointment every six months', kind: 'episode' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      deduplicated: false,
      superseded: [],
      related: [],
      memory: {
        id: expect.any(String),
        text: 'Has a dentist appointment every six months',
        kind: 'episode',
        source: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        key: null,
        validFrom: expect.any(String),
        validTo: null,
        supersededBy: null,
      },
    });
    const id = created.body.memory.id as string;
    expect((await call('GET', `/api/memories/${id}`, tokens.alice)).body.text).toBe('Has a dentist appointment every six months');
    const search = await call('GET', `/api/memories?q=${encodeURIComponent('dentist appointments')}&limit=3`, tokens.alice);
    expect(search.body.items[0]).toMatchObject({ id, score: expect.any(Number) });
    expect(search.body.nextCursor).toBeNull();
    const episodes = await call('GET', '/api/memories?kind=episode', tokens.alice);
    expect(episodes.body.items.map((memory: { id: string }) => memory.id)).toContain(id);
    expect(episodes.body.items.every((memory: { kind: string }) => memory.kind === 'episode')).toBe(true);
    const edited = await call('PATCH', `/api/memories/${id}`, tokens.alice, { text: 'Sees the dentist every six months', kind: 'fact' });
    expect(edited.body).toMatchObject({ id, text: 'Sees the dentist every six months', kind: 'fact' });
    expect((await call('DELETE', `/api/memories/${id}`, tokens.alice)).status).toBe(204);
    expect((await call('GET', `/api/memories/${id}`, tokens.alice)).status).toBe(404);
    expect((await call('GET', `/api/memories?q=dentist`, tokens.alice)).body.items).toEqual([]);
    await withClient(running.url, '2026-07-28', bearer(tokens.alice), async (client) => expect(await recallTexts(client, 'dentist', 50)).toEqual([]));
    const exported = await call('GET', '/api/memories/export', tokens.alice);
    expect(exported.body.memories.find((memory: { id: string }) => memory.id === id)).toMatchObject({
      text: 'Sees the dentist every six months',
      deletedAt: expect.any(String),
    });
  });

  it('pages with a cursor', async () => {
    const first = await call('GET', '/api/memories?limit=2', tokens.alice);
    expect(first.body.items).toHaveLength(2);
    const second = await call('GET', `/api/memories?limit=2&cursor=${first.body.nextCursor}`, tokens.alice);
    expect(second.body.items.map((memory: { id: string }) => memory.id)).not.toContain(first.body.items[0].id);
    expect((await call('GET', '/api/memories?cursor=forged', tokens.alice)).body.fields).toEqual({ cursor: expect.any(String) });
  });

  it("answers 404 alike for another user's id and a missing one, and 400 naming the id for one that is no UUID, on every route", async () => {
    const { body } = await call('POST', '/api/memories', tokens.alice, { text: 'Alice is saving for a sailing boat' });
    const aliceMemory = body.memory.id as string;
    const routes = [
      ['GET', undefined],
      ['PATCH', { kind: 'episode' }],
      ['DELETE', undefined],
    ] as const;
    for (const id of [aliceMemory, randomUUID(), aliceMemory.toUpperCase()]) {
      for (const [method, payload] of routes) {
        const answer = await call(method, `/api/memories/${id}`, tokens.bob, payload);
        expect([method, id, answer.status, answer.body.message]).toEqual([method, id, 404, `No memory with id ${id}`]);
      }
    }
    for (const id of ['not-an-id', `${aliceMemory}0`, aliceMemory.slice(1)]) {
      for (const [method, payload] of routes) {
        const answer = await call(method, `/api/memories/${id}`, tokens.bob, payload);
        expect([method, id, answer.status, answer.body.fields]).toEqual([method, id, 400, { id: 'must be a UUID' }]);
      }
    }
    expect((await call('GET', '/api/memories/export', tokens.bob)).body.memories.map((memory: { text: string }) => memory.text)).not.toContain(
      'Alice is saving for a sailing boat',
    );
    expect((await call('GET', '/api/memories?q=sailing boat', tokens.bob)).body.items).toEqual([]);
    expect((await call('GET', `/api/memories/${aliceMemory}`, tokens.alice)).status).toBe(200);
  });

  it('refuses the anonymous caller (401) and bad input (400 naming the field)', async () => {
    for (const [method, path] of [
      ['GET', '/api/memories'],
      ['POST', '/api/memories'],
      ['GET', '/api/memories/export'],
      ['GET', `/api/memories/${randomUUID()}`],
      ['DELETE', `/api/memories/${randomUUID()}`],
    ]) {
      expect([method, path, (await call(method!, path!, undefined, method === 'POST' ? { text: 'x' } : undefined)).status]).toEqual([method, path, 401]);
    }
    expect((await call('POST', '/api/memories', tokens.alice, { text: 'x', kind: 'secret' })).body).toMatchObject({
      statusCode: 400,
      fields: { kind: expect.stringContaining('fact, preference, episode') },
    });
    expect((await call('POST', '/api/memories', tokens.alice, { text: '' })).body.fields).toHaveProperty('text');
    expect((await call('POST', '/api/memories', tokens.alice, { text: 'ok', owner: 'bob' })).status).toBe(400);
    expect((await call('POST', '/api/memories', tokens.alice, { text: 'y'.repeat(2001) })).body).toMatchObject({
      statusCode: 400,
      fields: { text: expect.any(String) },
    });
    expect((await call('GET', '/api/memories?kind=secret', tokens.alice)).body.fields).toHaveProperty('kind');
    expect((await call('GET', '/api/memories?q=x&limit=51', tokens.alice)).body.fields).toHaveProperty('limit');
    expect((await call('GET', `/api/memories?q=${'x'.repeat(1001)}`, tokens.alice)).body.fields).toHaveProperty('q');
    expect((await call('PATCH', `/api/memories/${randomUUID()}`, tokens.alice, {})).status).toBe(400);
  });

  it('is described in the OpenAPI document', async () => {
    const document = await call('GET', '/openapi.json', undefined);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/memories',
        '/api/memories/export',
        '/api/memories/{id}',
        '/api/memories/{id}/history',
        '/admin/users/{userId}/memories',
        '/admin/users/{userId}/memories/{id}',
        '/admin/users/{userId}/memories/{id}/history',
      ]),
    );
  });
});

describe('/admin/users/:userId/memories', () => {
  it('is for admins only', async () => {
    expect((await call('GET', `/admin/users/${aliceId}/memories`, undefined)).status).toBe(401);
    expect((await call('GET', `/admin/users/${aliceId}/memories`, tokens.bob)).status).toBe(403);
    expect((await call('DELETE', `/admin/users/${aliceId}/memories`, tokens.alice)).status).toBe(403);
    expect((await call('GET', '/admin/users/not-a-uuid/memories', tokens.admin)).body).toMatchObject({ statusCode: 400, fields: { userId: 'must be a UUID' } });
  });

  it("lists a user's memories, erases one, then all: nothing of them is recallable afterwards", async () => {
    const listed = await call('GET', `/admin/users/${aliceId}/memories?limit=200`, tokens.admin);
    expect(listed.status).toBe(200);
    const texts = listed.body.items.map((memory: { text: string }) => memory.text);
    expect(texts).toContain('Alice keeps her spare key under the blue flowerpot');
    const one = listed.body.items[0].id as string;
    expect((await call('DELETE', `/admin/users/${aliceId}/memories/${one}`, tokens.admin)).status).toBe(204);
    expect((await call('DELETE', `/admin/users/${aliceId}/memories/${one}`, tokens.admin)).status).toBe(404);
    const erased = await call('DELETE', `/admin/users/${aliceId}/memories`, tokens.admin);
    expect(erased.body.erased).toBeGreaterThan(0);
    await withClient(running.url, '2025-11-25', bearer(tokens.alice), async (client) => {
      expect(await recallTexts(client, 'spare key flowerpot', 50)).toEqual([]);
      expect(await recallTexts(client, '咖啡', 50)).toEqual([]);
    });
    expect((await call('GET', '/api/memories/export', tokens.alice)).body.memories).toEqual([]);
    expect((await call('GET', '/api/memories?q=spare key', tokens.bob)).body.items.length).toBeGreaterThan(0);
  });
});

describe('the user-data contributor', () => {
  it("exports, counts and erases a user's memories for the account-wide routes", async () => {
    const memories = running.app
      .get(UserDataContributors)
      .all()
      .find((entry) => entry.name === 'memories')!.contributor;
    await call('POST', '/api/memories', tokens.alice, { text: 'Alice collects vinyl records' });
    const [{ id: bobId }] = await running.app.get(DataSource).query(`SELECT id FROM users WHERE subject = 'bob'`);
    const bobCount = await memories.countFor(bobId);
    expect(await memories.countFor(aliceId)).toBe(1);
    expect(await memories.exportFor(aliceId)).toEqual([expect.objectContaining({ text: 'Alice collects vinyl records', deletedAt: null })]);
    await memories.eraseFor(aliceId);
    expect(await memories.countFor(aliceId)).toBe(0);
    expect(await memories.countFor(bobId)).toBe(bobCount);
  });
});

describe('with MEMORY_ENABLED=false', () => {
  let disabled: RunningApp;
  let token: string;
  const env = { ...ENV, MEMORY_ENABLED: 'false' };

  beforeAll(async () => {
    disabled = await startApp(env);
    token = await cliToken(disabled, env, '--sub', 'carol');
  }, 120_000);

  afterAll(() => disabled?.close());

  it.each(ERAS)('both tools stay listed and answer a clean tool error (revision %s)', async (era) => {
    await withClient(disabled.url, era, bearer(token), async (client) => {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['remember', 'recall_memory', 'forget_memory']));
      expect(await toolError(client, 'remember', { text: 'anything' })).toBe('Long-term memory is not enabled on this server');
      expect(await toolError(client, 'recall_memory', { query: 'anything' })).toBe('Long-term memory is not enabled on this server');
      expect(await toolError(client, 'forget_memory', { query: 'anything' })).toBe('Long-term memory is not enabled on this server');
    });
  });
});
