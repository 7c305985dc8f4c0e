import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { DeletedMemoryRetention } from '@app/memory';
import { bearer, cliToken, structured, TEST_JWT_SECRET, toolError, withClient } from './support/auth.js';
import { userIdOf } from './support/files.js';
import { jsonCall } from './support/json-call.js';
import { startApp, type RunningApp } from './support/test-app.js';

/** Two live memories per user, so four held at most with the deleted ones (the default retention, 30 days). */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, MEMORY_MAX_PER_USER: '2' };

let running: RunningApp;
const tokens: Record<string, string> = {};

const call = (method: string, path: string, token: string | undefined, body?: unknown) => jsonCall(running, method, path, token, body);

/** Stores a memory over REST and answers its id. */
async function stored(token: string, text: string): Promise<string> {
  const answer = await call('POST', '/api/memories', token, { text });
  expect([text, answer.status]).toEqual([text, 201]);
  return answer.body.memory.id;
}

const exported = async (token: string) =>
  ((await call('GET', '/api/memories/export', token)).body.memories as { text: string; deletedAt: string | null }[]).map((memory) => [
    memory.text,
    memory.deletedAt === null ? 'live' : 'deleted',
  ]);

/** Moves the deletion of the memories with these texts `days` days into the past. */
const deletedDaysAgo = (days: number, ...texts: string[]) =>
  running.app.get(DataSource).query(`UPDATE memories SET deleted_at = now() - make_interval(days => $1) WHERE text = ANY($2::text[])`, [days, texts]);

const vocabulary = async (subject: string): Promise<string[]> =>
  (await running.app.get(DataSource).query('SELECT word FROM memory_words WHERE user_id = $1 ORDER BY word', [await userIdOf(running, subject)])).map(
    (row: { word: string }) => row.word,
  );

beforeAll(async () => {
  running = await startApp(ENV);
  for (const subject of ['alice', 'bob', 'carol', 'dave', 'frank']) tokens[subject] = await cliToken(running, ENV, '--sub', subject);
  tokens.admin = await cliToken(running, ENV, '--sub', 'root', '--email', 'root@example.com', '--admin');
}, 120_000);

afterAll(() => running?.close());

describe('deleted memories count against twice MEMORY_MAX_PER_USER', () => {
  it('refuses a new memory past that, naming the limit and the retention, over MCP and REST; refreshing one still works', async () => {
    for (const text of ['Alice owns a red kayak', 'Alice owns a blue tent'])
      await call('DELETE', `/api/memories/${await stored(tokens.alice, text)}`, tokens.alice);
    await stored(tokens.alice, 'Alice owns a green bike');
    await call('DELETE', `/api/memories/${await stored(tokens.alice, 'Alice owns a grey scarf')}`, tokens.alice);
    const refusal =
      'You hold 4 memories, 3 of them deleted and not yet purged, the most this server holds for one user (4, twice MEMORY_MAX_PER_USER): ' +
      'deleted memories are purged 30 days after their deletion (MEMORY_DELETED_RETENTION), which makes room again';
    await withClient(running.url, '2026-07-28', bearer(tokens.alice), async (client) => {
      expect(await toolError(client, 'remember', { text: 'Alice owns a yellow hat' })).toBe(refusal);
      expect(await structured(client, 'remember', { text: 'alice owns a GREEN bike' })).toMatchObject({ stored: true, deduplicated: true });
    });
    expect(await call('POST', '/api/memories', tokens.alice, { text: 'Alice owns a yellow hat' })).toEqual({
      status: 409,
      body: expect.objectContaining({ statusCode: 409, message: refusal }),
    });
    await withClient(running.url, '2025-11-25', bearer(tokens.bob), (client) => structured(client, 'remember', { text: 'Bob owns a yellow hat' }));
    expect(await exported(tokens.alice)).toEqual([
      ['Alice owns a red kayak', 'deleted'],
      ['Alice owns a blue tent', 'deleted'],
      ['Alice owns a green bike', 'live'],
      ['Alice owns a grey scarf', 'deleted'],
    ]);
  });
});

describe('the purge of deleted memories (MEMORY_DELETED_RETENTION)', () => {
  it("removes every user's memories deleted longer ago than the retention, and the words only they held; the rest stays", async () => {
    await call('DELETE', `/api/memories/${await stored(tokens.carol, 'Carol adores the harpsichord')}`, tokens.carol);
    await call('DELETE', `/api/memories/${await stored(tokens.carol, 'Carol fears thunderstorms')}`, tokens.carol);
    await stored(tokens.carol, 'Carol grows tomatoes');
    await call('DELETE', `/api/memories/${await stored(tokens.dave, 'Dave rides a unicycle')}`, tokens.dave);
    expect(await vocabulary('carol')).toEqual(['adores', 'carol', 'fears', 'grows', 'harpsichord', 'the', 'thunderstorms', 'tomatoes']);
    await deletedDaysAgo(31, 'Carol adores the harpsichord', 'Dave rides a unicycle', 'Alice owns a red kayak', 'Alice owns a blue tent');
    await deletedDaysAgo(29, 'Carol fears thunderstorms');

    expect(await running.app.get(DeletedMemoryRetention).purge()).toBe(4);
    expect(await exported(tokens.carol)).toEqual([
      ['Carol fears thunderstorms', 'deleted'],
      ['Carol grows tomatoes', 'live'],
    ]);
    expect(await exported(tokens.dave)).toEqual([]);
    expect(await vocabulary('carol')).toEqual(['carol', 'fears', 'grows', 'thunderstorms', 'tomatoes']);
    expect(await vocabulary('dave')).toEqual([]);
    expect(await running.app.get(DataSource).query(`SELECT count(*)::int AS count FROM memories WHERE deleted_at < now() - interval '30 days'`)).toEqual([
      { count: 0 },
    ]);
    // Alice, refused above, has room again.
    await withClient(running.url, '2026-07-28', bearer(tokens.alice), async (client) =>
      expect(await structured(client, 'remember', { text: 'Alice owns a yellow hat' })).toMatchObject({ stored: true }),
    );
  });
});

describe("an administrator's erase of one memory", () => {
  it("takes the words only it held out of the user's vocabulary", async () => {
    const calligraphy = await stored(tokens.frank, 'Frank practises calligraphy');
    await stored(tokens.frank, 'Frank practises yoga');
    expect((await call('DELETE', `/admin/users/${await userIdOf(running, 'frank')}/memories/${calligraphy}`, tokens.admin)).status).toBe(204);
    expect(await vocabulary('frank')).toEqual(['frank', 'practises', 'yoga']);
  });
});

describe('with MEMORY_DELETED_RETENTION=0', () => {
  const env = { ...ENV, MEMORY_MAX_PER_USER: '1', MEMORY_DELETED_RETENTION: '0' };
  let forever: RunningApp;
  let token: string;

  beforeAll(async () => {
    forever = await startApp(env);
    token = await cliToken(forever, env, '--sub', 'erin');
  }, 120_000);

  afterAll(() => forever?.close());

  it('keeps deleted memories however old, and says so to a user who reaches the most held', async () => {
    const erinCall = (method: string, path: string, body?: unknown) => jsonCall(forever, method, path, token, body);
    for (const text of ['Erin likes jazz', 'Erin likes opera']) {
      const { body } = await erinCall('POST', '/api/memories', { text });
      expect((await erinCall('DELETE', `/api/memories/${body.memory.id}`)).status).toBe(204);
    }
    expect((await erinCall('POST', '/api/memories', { text: 'Erin likes blues' })).body).toMatchObject({
      statusCode: 409,
      message: expect.stringContaining('this server keeps deleted memories forever (MEMORY_DELETED_RETENTION=0); an administrator can erase them'),
    });
    await forever.app.get(DataSource).query(`UPDATE memories SET deleted_at = now() - interval '1000 days'`);
    expect(await forever.app.get(DeletedMemoryRetention).purge()).toBe(0);
    expect((await erinCall('GET', '/api/memories/export')).body.memories).toHaveLength(2);
  });
});
