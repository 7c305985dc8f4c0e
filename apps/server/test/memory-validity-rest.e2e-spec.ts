import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TEST_JWT_SECRET } from './support/auth.js';
import { jsonCall } from './support/json-call.js';
import { auditEntries, partiesOf, type Parties } from './support/parties.js';
import { startApp, type RunningApp } from './support/test-app.js';

/** Validity and history over REST: the user's routes and the admin's, and the export. */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0' };

let app: RunningApp;
let parties: Parties;
const ids: Record<string, string> = {};

const as = (token: string | undefined, method: string, path: string, body?: unknown) => jsonCall(app, method, path, token, body);

beforeAll(async () => {
  app = await startApp(ENV);
  parties = await partiesOf(app);
  const paris = await as(parties.alice.token, 'POST', '/api/memories', { text: 'I live in Paris', validFrom: '2020-01-15', key: 'Home City' });
  ids['paris'] = paris.body.memory.id;
  const berlin = await as(parties.alice.token, 'POST', '/api/memories', { text: 'I live in Berlin', validFrom: '2024-03-01T08:00:00+01:00', key: 'home city' });
  ids['berlin'] = berlin.body.memory.id;
  const bobs = await as(parties.bob.token, 'POST', '/api/memories', { text: 'Bob lives in Rome' });
  ids['bobs'] = bobs.body.memory.id;
}, 120_000);

afterAll(() => app?.close());

describe('POST /api/memories with key, validFrom and replaces', () => {
  it('supersedes the current memory of the key and answers what it did', async () => {
    const berlin = await as(parties.alice.token, 'GET', `/api/memories/${ids['berlin']}`);
    expect(berlin.body).toMatchObject({ key: 'home city', validFrom: '2024-03-01T07:00:00.000Z', validTo: null, supersededBy: null });
    const paris = await as(parties.alice.token, 'GET', `/api/memories/${ids['paris']}`);
    expect(paris.body).toMatchObject({ validFrom: '2020-01-15T00:00:00.000Z', validTo: '2024-03-01T07:00:00.000Z', supersededBy: ids['berlin'] });
    const lisbon = await as(parties.alice.token, 'POST', '/api/memories', { text: 'Spends summers in Lisbon', replaces: [] });
    expect(lisbon.body).toEqual({ memory: expect.objectContaining({ text: 'Spends summers in Lisbon' }), deduplicated: false, superseded: [], related: [] });
  });

  it('refuses bad validity input with 400 naming the field, and another user’s id in replaces naming it', async () => {
    for (const [body, field] of [
      [{ text: 'x', validFrom: 'yesterday' }, 'validFrom'],
      [{ text: 'x', validFrom: '2024-02-30' }, 'validFrom'],
      [{ text: 'x', validFrom: '2024-01-01T10:00:00' }, 'validFrom'],
      [{ text: 'x', replaces: ['not-a-uuid'] }, 'replaces'],
      [{ text: 'x', replaces: 'abc' }, 'replaces'],
      [{ text: 'x', key: 7 }, 'key'],
      [{ text: 'x', key: '!!!' }, 'key'],
      [{ text: 'x', key: 'k'.repeat(101) }, 'key'],
    ] as const) {
      const answer = await as(parties.alice.token, 'POST', '/api/memories', body);
      expect([JSON.stringify(body), answer.status, Object.keys(answer.body.fields ?? {})]).toEqual([JSON.stringify(body), 400, [field]]);
    }
    const foreign = await as(parties.alice.token, 'POST', '/api/memories', { text: 'I live in Rome', replaces: [ids['bobs']] });
    expect([foreign.status, foreign.body.message]).toEqual([400, expect.stringContaining(`${ids['bobs']} is not a memory of yours`)]);
    expect((await as(parties.bob.token, 'GET', `/api/memories/${ids['bobs']}`)).body.validTo).toBeNull();
  });
});

describe('GET /api/memories with asOf and includeHistory', () => {
  it('lists and searches current memories by default, those valid then with asOf, every version with includeHistory', async () => {
    const listed = async (query: string) => (await as(parties.alice.token, 'GET', `/api/memories?${query}`)).body.items.map((m: { id: string }) => m.id);
    expect(await listed('')).not.toContain(ids['paris']);
    expect(await listed('includeHistory=true')).toEqual(expect.arrayContaining([ids['paris'], ids['berlin']]));
    expect(await listed('asOf=2022-06-01')).toEqual([ids['paris']]);
    expect(await listed('q=live')).toEqual([ids['berlin']]);
    expect(await listed('q=live&asOf=2022-06-01')).toEqual([ids['paris']]);
    expect(await listed('q=live&includeHistory=true')).toEqual([ids['berlin'], ids['paris']]);
    expect(await listed('q=live&includeHistory=false')).toEqual([ids['berlin']]);
  });

  it.each([
    ['asOf=soon', 'asOf'],
    ['asOf=2024-13-01', 'asOf'],
    ['includeHistory=yes', 'includeHistory'],
    ['asOf=2024-01-01&includeHistory=true', 'includeHistory'],
  ])('answers ?%s with 400 naming the parameter', async (query, field) => {
    const answer = await as(parties.alice.token, 'GET', `/api/memories?${query}`);
    expect([answer.status, Object.keys(answer.body.fields ?? {})]).toEqual([400, [field]]);
  });
});

describe('GET /api/memories/:id/history', () => {
  it('answers the chain newest first, by pages, to its owner; 404 to another user; 401 to the anonymous caller', async () => {
    const first = await as(parties.alice.token, 'GET', `/api/memories/${ids['paris']}/history?limit=1`);
    expect(first.status).toBe(200);
    expect(first.body.items.map((memory: { id: string }) => memory.id)).toEqual([ids['berlin']]);
    const second = await as(parties.alice.token, 'GET', `/api/memories/${ids['paris']}/history?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ items: [expect.objectContaining({ id: ids['paris'], supersededBy: ids['berlin'] })], nextCursor: null });
    const bob = await as(parties.bob.token, 'GET', `/api/memories/${ids['paris']}/history`);
    expect([bob.status, bob.body.message]).toEqual([404, `No memory with id ${ids['paris']}`]);
    expect((await as(undefined, 'GET', `/api/memories/${ids['paris']}/history`)).status).toBe(401);
    expect((await as(parties.alice.token, 'GET', `/api/memories/${randomUUID()}/history`)).status).toBe(404);
    expect((await as(parties.alice.token, 'GET', '/api/memories/not-a-uuid/history')).body.fields).toEqual({ id: 'must be a UUID' });
    // A cursor of the list is not one of the history.
    const page = await as(parties.alice.token, 'GET', '/api/memories?limit=1&includeHistory=true');
    const foreignCursor = await as(parties.alice.token, 'GET', `/api/memories/${ids['paris']}/history?cursor=${page.body.nextCursor}`);
    expect([foreignCursor.status, Object.keys(foreignCursor.body.fields)]).toEqual([400, ['cursor']]);
  });
});

describe('PATCH /api/memories/:id with key and validFrom', () => {
  it('moves validFrom (and the end of what it superseded), sets and clears a key, refuses a key another current memory holds', async () => {
    const moved = await as(parties.alice.token, 'PATCH', `/api/memories/${ids['berlin']}`, { validFrom: '2024-04-01' });
    expect([moved.status, moved.body.validFrom]).toEqual([200, '2024-04-01T00:00:00.000Z']);
    expect((await as(parties.alice.token, 'GET', `/api/memories/${ids['paris']}`)).body.validTo).toBe('2024-04-01T00:00:00.000Z');
    const tea = await as(parties.alice.token, 'POST', '/api/memories', { text: 'Drinks green tea' });
    const clash = await as(parties.alice.token, 'PATCH', `/api/memories/${tea.body.memory.id}`, { key: 'HOME CITY' });
    expect([clash.status, clash.body.message]).toEqual([409, expect.stringContaining('home city')]);
    expect((await as(parties.alice.token, 'PATCH', `/api/memories/${tea.body.memory.id}`, { key: 'drink' })).body.key).toBe('drink');
    expect((await as(parties.alice.token, 'PATCH', `/api/memories/${tea.body.memory.id}`, { key: null })).body.key).toBeNull();
    const late = await as(parties.alice.token, 'PATCH', `/api/memories/${ids['paris']}`, { validFrom: '2025-01-01' });
    expect([late.status, late.body.fields]).toEqual([400, { validFrom: 'must not be after validTo' }]);
    expect((await as(parties.bob.token, 'PATCH', `/api/memories/${ids['berlin']}`, { key: 'x' })).status).toBe(404);
  });
});

describe('POST /api/tools/forget_memory/call', () => {
  it('answers a query’s matches and forgets nothing: in-process, no client can be asked to confirm', async () => {
    const answer = await as(parties.bob.token, 'POST', '/api/tools/forget_memory/call', { arguments: { query: 'Rome' } });
    expect(answer.body.structuredContent).toEqual({ forgotten: [], matches: [expect.objectContaining({ id: ids['bobs'] })], note: expect.any(String) });
    expect((await as(parties.bob.token, 'GET', `/api/memories/${ids['bobs']}`)).status).toBe(200);
  });
});

describe('the export', () => {
  it('carries each memory’s validity', async () => {
    const exported = await as(parties.alice.token, 'GET', '/api/memories/export');
    expect(exported.body.memories.find((memory: { id: string }) => memory.id === ids['paris'])).toMatchObject({
      key: 'home city',
      validFrom: '2020-01-15T00:00:00.000Z',
      validTo: expect.any(String),
      supersededBy: ids['berlin'],
      deletedAt: null,
    });
  });
});

describe('/admin/users/:userId/memories with validity', () => {
  const base = () => `/admin/users/${parties.alice.id}/memories`;

  it('answers a memory’s history to admins, on the audit trail; 403 to users, 401 to the anonymous caller', async () => {
    const answer = await as(parties.admin.token, 'GET', `${base()}/${ids['paris']}/history`);
    expect(answer.body.items.map((memory: { id: string }) => memory.id)).toEqual([ids['berlin'], ids['paris']]);
    expect((await auditEntries(app, 'memories.history')).at(-1)).toEqual({
      actor_id: parties.admin.id,
      target_user_id: parties.alice.id,
      detail: { memoryId: ids['paris'] },
    });
    expect((await as(parties.bob.token, 'GET', `${base()}/${ids['paris']}/history`)).status).toBe(403);
    expect((await as(undefined, 'GET', `${base()}/${ids['paris']}/history`)).status).toBe(401);
    expect((await as(parties.admin.token, 'GET', `/admin/users/${parties.alice.id}/memories/${ids['bobs']}/history`)).status).toBe(404);
  });

  it('searches as of an instant and with history, and edits key and validFrom, as the user can', async () => {
    const then = await as(parties.admin.token, 'GET', `${base()}?q=live&asOf=2022-06-01`);
    expect(then.body.items.map((memory: { id: string }) => memory.id)).toEqual([ids['paris']]);
    const edited = await as(parties.admin.token, 'PATCH', `${base()}/${ids['paris']}`, { key: 'old home' });
    expect([edited.status, edited.body.key]).toEqual([200, 'old home']);
    expect((await auditEntries(app, 'memories.edit')).at(-1)).toMatchObject({ detail: { memoryId: ids['paris'], changed: ['key'] } });
  });
});
