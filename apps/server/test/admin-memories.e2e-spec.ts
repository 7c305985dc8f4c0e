import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TEST_JWT_SECRET } from './support/auth.js';
import { jsonCall } from './support/json-call.js';
import { auditEntries, partiesOf, statusesOf, type Parties } from './support/parties.js';
import { startApp, type RunningApp } from './support/test-app.js';

/** What an admin sees and does of one user's memories: what the user's own routes offer (list, search, read, edit), audited. */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0' };

let app: RunningApp;
let parties: Parties;
const memoryIds: Record<string, string> = {};

/** Stores a memory as `who`; answers its id. */
async function remember(token: string, text: string, kind = 'fact'): Promise<string> {
  const answer = await jsonCall(app, 'POST', '/api/memories', token, { text, kind });
  expect(answer.status).toBe(201);
  return answer.body.memory.id;
}

beforeAll(async () => {
  app = await startApp(ENV);
  parties = await partiesOf(app);
  memoryIds['peanuts'] = await remember(parties.alice.token, 'Alice is allergic to peanuts');
  memoryIds['tea'] = await remember(parties.alice.token, 'Alice prefers green tea in the morning', 'preference');
  memoryIds['bobs'] = await remember(parties.bob.token, 'Bob is allergic to peanuts too');
});
afterAll(() => app?.close());

const base = () => `/admin/users/${parties.alice.id}/memories`;

describe('/admin/users/:userId/memories', () => {
  it('lists the live memories newest first, by kind and by pages, on the audit trail', async () => {
    const all = await jsonCall(app, 'GET', base(), parties.admin.token);
    expect(all.status).toBe(200);
    expect(all.body.items.map((memory: { id: string }) => memory.id)).toEqual([memoryIds['tea'], memoryIds['peanuts']]);
    const preferences = await jsonCall(app, 'GET', `${base()}?kind=preference`, parties.admin.token);
    expect(preferences.body.items.map((memory: { id: string }) => memory.id)).toEqual([memoryIds['tea']]);
    const page = await jsonCall(app, 'GET', `${base()}?limit=1`, parties.admin.token);
    const next = await jsonCall(app, 'GET', `${base()}?limit=1&cursor=${page.body.nextCursor}`, parties.admin.token);
    expect(next.body.items.map((memory: { id: string }) => memory.id)).toEqual([memoryIds['peanuts']]);
    expect((await auditEntries(app, 'memories.view')).at(-1)).toEqual({ actor_id: parties.admin.id, target_user_id: parties.alice.id, detail: null });
  });

  it("searches them with q as GET /api/memories?q= does: one page, best first, each with a score, the user's only", async () => {
    const asAdmin = await jsonCall(app, 'GET', `${base()}?q=peanut allergy`, parties.admin.token);
    const asAlice = await jsonCall(app, 'GET', '/api/memories?q=peanut allergy', parties.alice.token);
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body).toEqual(asAlice.body);
    expect(asAdmin.body).toEqual({ items: [expect.objectContaining({ id: memoryIds['peanuts'], score: expect.any(Number) })], nextCursor: null });
    expect((await auditEntries(app, 'memories.view')).at(-1)).toMatchObject({ target_user_id: parties.alice.id, detail: { q: 'peanut allergy' } });
  });

  it.each([
    ['q=x&cursor=abc', 'cursor'],
    ['q=x&limit=51', 'limit'],
    ['q=', 'q'],
    ['kind=secret', 'kind'],
    ['limit=0', 'limit'],
    ['cursor=nonsense', 'cursor'],
  ])('answers ?%s with 400 naming the parameter', async (query, field) => {
    const answer = await jsonCall(app, 'GET', `${base()}?${query}`, parties.admin.token);
    expect([answer.status, Object.keys(answer.body.fields ?? {})]).toEqual([400, [field]]);
  });

  it('reads one memory, on the audit trail', async () => {
    const answer = await jsonCall(app, 'GET', `${base()}/${memoryIds['tea']}`, parties.admin.token);
    expect([answer.status, answer.body]).toEqual([
      200,
      expect.objectContaining({ id: memoryIds['tea'], kind: 'preference', text: 'Alice prefers green tea in the morning' }),
    ]);
    expect((await auditEntries(app, 'memories.read')).at(-1)).toEqual({
      actor_id: parties.admin.id,
      target_user_id: parties.alice.id,
      detail: { memoryId: memoryIds['tea'] },
    });
  });

  it('changes its text or kind, on the audit trail as memories.edit; the user sees the change', async () => {
    const edited = await jsonCall(app, 'PATCH', `${base()}/${memoryIds['tea']}`, parties.admin.token, { text: 'Alice prefers jasmine tea in the morning' });
    expect([edited.status, edited.body.text, edited.body.kind]).toEqual([200, 'Alice prefers jasmine tea in the morning', 'preference']);
    expect((await jsonCall(app, 'GET', `/api/memories/${memoryIds['tea']}`, parties.alice.token)).body.text).toBe('Alice prefers jasmine tea in the morning');
    expect((await auditEntries(app, 'memories.edit')).at(-1)).toEqual({
      actor_id: parties.admin.id,
      target_user_id: parties.alice.id,
      detail: { memoryId: memoryIds['tea'], changed: ['text'] },
    });
    const rekinded = await jsonCall(app, 'PATCH', `${base()}/${memoryIds['tea']}`, parties.admin.token, { kind: 'fact' });
    expect(rekinded.body.kind).toBe('fact');
    for (const [body, field] of [
      [{}, 'text'],
      [{ kind: 'secret' }, 'kind'],
      [{ text: '' }, 'text'],
      [{ text: 'x', owner: 'bob' }, 'owner'],
    ] as const) {
      const refused = await jsonCall(app, 'PATCH', `${base()}/${memoryIds['tea']}`, parties.admin.token, body);
      expect([refused.status, Object.keys(refused.body.fields ?? {})]).toEqual([400, [field]]);
    }
  });

  it("answers another user's memory exactly like a missing one (404), an id that is no UUID with 400 naming it, an unknown user with 404", async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { kind: 'episode' }],
      ['DELETE', undefined],
    ] as const) {
      for (const id of [memoryIds['bobs'], randomUUID()]) {
        const answer = await jsonCall(app, method, `${base()}/${id}`, parties.admin.token, body);
        expect([method, answer.status, answer.body.message]).toEqual([method, 404, `No memory with id ${id}`]);
      }
      const malformed = await jsonCall(app, method, `${base()}/not-a-uuid`, parties.admin.token, body);
      expect([method, malformed.status, malformed.body.fields]).toEqual([method, 400, { id: 'must be a UUID' }]);
      const nobody = await jsonCall(app, method, `/admin/users/${randomUUID()}/memories/${memoryIds['peanuts']}`, parties.admin.token, body);
      expect([method, nobody.status, nobody.body.message]).toEqual([method, 404, 'No such user']);
    }
    // Bob's memory is untouched by all of it.
    expect((await jsonCall(app, 'GET', `/api/memories/${memoryIds['bobs']}`, parties.bob.token)).body.kind).toBe('fact');
  });

  it('answers anonymous callers 401 and users 403 on every route', async () => {
    const id = memoryIds['peanuts'];
    for (const [method, path, body] of [
      ['GET', base(), undefined],
      ['GET', `${base()}?q=peanuts`, undefined],
      ['GET', `${base()}/${id}`, undefined],
      ['GET', `${base()}/${id}/history`, undefined],
      ['PATCH', `${base()}/${id}`, { kind: 'episode' }],
      ['DELETE', `${base()}/${id}`, undefined],
    ] as const) {
      const statuses = await statusesOf(app, method, path, { ...parties, admin: parties.alice }, body);
      expect([method, path, statuses.anonymous, statuses.user, statuses.admin]).toEqual([method, path, 401, 403, 403]);
    }
    expect((await jsonCall(app, 'GET', `/api/memories/${id}`, parties.alice.token)).body.kind).toBe('fact');
  });
});
