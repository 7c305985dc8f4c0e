import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { MemoryEntity } from './memory.entity.js';
import { MemoryStore } from './memory.store.js';
import { MemoryValidity1797500000000 } from './migrations/1797500000000-memory-validity.js';
import { MEMORY_MIGRATIONS } from './migrations/memory-migrations.js';
import { supersedeSql } from './validity/chain-sql.js';
import { migratedDatabase, type MigratedDatabase } from './testing/test-database.js';
import { TEST_MEMORY_OPTIONS } from './testing/test-options.js';

/** Facts that change: supersession, validity, as-of and history recall, the database's rules for them. */

let db: MigratedDatabase;
let store: MemoryStore;

beforeAll(async () => {
  db = await migratedDatabase();
  store = new MemoryStore(db.dataSource.getRepository(MemoryEntity), TEST_MEMORY_OPTIONS);
  await store.onApplicationBootstrap();
}, 120_000);

afterAll(async () => {
  await store?.onModuleDestroy();
  await db?.close();
});

const day = (date: string) => new Date(`${date}T00:00:00Z`);
const texts = async (userId: string, query: string, validity?: Parameters<MemoryStore['recall']>[4]) =>
  (await store.recall(userId, query, 10, undefined, validity)).map((memory) => memory.text);

describe('remember with replaces', () => {
  it('supersedes the old fact: kept and readable, out of the default recall, valid until the new one', async () => {
    const user = randomUUID();
    const paris = await store.remember(user, { text: 'I live in Paris', validFrom: day('2020-03-01') });
    const berlin = await store.remember(user, { text: 'I moved to Berlin', validFrom: day('2024-06-01'), replaces: [paris.id] });
    expect(berlin).toMatchObject({ deduplicated: false, superseded: [{ id: paris.id, text: 'I live in Paris', key: null }] });
    expect(await store.get(user, paris.id)).toMatchObject({ validFrom: day('2020-03-01'), validTo: day('2024-06-01'), supersededBy: berlin.id });
    expect(await store.get(user, berlin.id)).toMatchObject({ validFrom: day('2024-06-01'), validTo: null, supersededBy: null });
    // "where do I live" shares a word with Paris only: the match answers with the fact's current version.
    expect(await texts(user, 'where do I live')).toEqual(['I moved to Berlin']);
    expect(await texts(user, 'where do I live', { asOf: day('2023-01-01') })).toEqual(['I live in Paris']);
    expect(await texts(user, 'which city did I move to', { asOf: day('2023-01-01') })).toEqual(['I live in Paris']);
    expect(await texts(user, 'where do I live', { asOf: day('2019-01-01') })).toEqual([]);
    expect(await texts(user, 'where do I live', 'history')).toEqual(['I moved to Berlin', 'I live in Paris']);
    expect((await store.list(user, { limit: 10 })).items.map((memory) => memory.text)).toEqual(['I moved to Berlin']);
    expect((await store.list(user, { limit: 10, validity: 'history' })).items).toHaveLength(2);
    expect((await store.history(user, paris.id, { limit: 10 })).items.map((memory) => memory.text)).toEqual(['I moved to Berlin', 'I live in Paris']);
  });

  it('ranks the current version above those it superseded, whichever matched better', async () => {
    const user = randomUUID();
    await store.remember(user, { text: 'Drinks green tea every morning' });
    const old = await store.remember(user, { text: 'My doctor is Dr. Okafor at the Riverside clinic, doctor since 2019' });
    await store.remember(user, { text: 'Now seeing Dr. Smith', replaces: [old.id] });
    const recalled = await store.recall(user, 'doctor Riverside clinic', 10, undefined, 'history');
    expect(recalled.map((memory) => memory.text)).toEqual(['Now seeing Dr. Smith', 'My doctor is Dr. Okafor at the Riverside clinic, doctor since 2019']);
    expect(recalled[0]!.score).toBeGreaterThanOrEqual(recalled[1]!.score);
  });

  it('refuses ids that are not current memories of the caller, naming each, and stores nothing', async () => {
    const [user, other] = [randomUUID(), randomUUID()];
    const first = await store.remember(user, { text: 'Works at Acme' });
    const second = await store.remember(user, { text: 'Works at Globex', replaces: [first.id] });
    const deleted = await store.remember(user, { text: 'Plays chess' });
    await store.softDelete(user, deleted.id);
    const others = await store.remember(other, { text: 'Works at Initech' });
    const missing = randomUUID();
    const before = await store.countFor(user);
    await expect(store.remember(user, { text: 'Works at Hooli', replaces: [first.id, deleted.id, others.id, missing] })).rejects.toMatchObject({
      message: expect.stringContaining(
        `${first.id} was already superseded by ${second.id}; ${deleted.id} was deleted; ${others.id} is not a memory of yours; ${missing} is not a memory of yours`,
      ),
      fields: { replaces: expect.stringContaining(others.id) },
    });
    await expect(store.remember(user, { text: 'Works at Hooli', replaces: ['not-an-id'] })).rejects.toMatchObject({ fields: { replaces: expect.any(String) } });
    expect(await store.countFor(user)).toBe(before);
    expect((await store.get(other, others.id)).validTo).toBeNull();
  });

  it('treats the same text again as the fact restated: the current memory is refreshed and supersedes the others named', async () => {
    const user = randomUUID();
    const lisbon = await store.remember(user, { text: 'I live in Lisbon' });
    const porto = await store.remember(user, { text: 'I live in Porto' });
    const again = await store.remember(user, { text: 'i live in porto!', replaces: [lisbon.id, porto.id] });
    expect(again).toMatchObject({ id: porto.id, deduplicated: true, superseded: [{ id: lisbon.id }] });
    expect((await store.get(user, lisbon.id)).supersededBy).toBe(porto.id);
  });

  it('stores a fact said again after it was superseded as a new memory, not a refresh of the old one', async () => {
    const user = randomUUID();
    const paris = await store.remember(user, { text: 'I live in Paris' });
    await store.remember(user, { text: 'I live in Rome', replaces: [paris.id] });
    const back = await store.remember(user, { text: 'I live in Paris' });
    expect(back.deduplicated).toBe(false);
    expect(back.id).not.toBe(paris.id);
  });

  it('dates a superseded memory never before its own start: a correction dated earlier leaves it an empty interval', async () => {
    const user = randomUUID();
    const wrong = await store.remember(user, { text: 'Allergic to penicillin', validFrom: day('2022-01-01') });
    await store.remember(user, { text: 'Allergic to amoxicillin, not penicillin', validFrom: day('2015-01-01'), replaces: [wrong.id] });
    expect(await store.get(user, wrong.id)).toMatchObject({ validFrom: day('2022-01-01'), validTo: day('2022-01-01') });
    expect(await texts(user, 'allergic', { asOf: day('2023-01-01') })).toEqual(['Allergic to amoxicillin, not penicillin']);
  });
});

describe('remember with a key', () => {
  it('supersedes the current memory with the same key (normalized), whatever it says, and lists related ones', async () => {
    const user = randomUUID();
    const okafor = await store.remember(user, { text: 'My doctor is Dr. Okafor', key: 'Doctor' });
    const weiss = await store.remember(user, { text: 'My doctor is Dr. Weiss' });
    await store.remember(user, { text: 'Drinks green tea every morning' });
    const smith = await store.remember(user, { text: 'My doctor is Dr. Smith', key: ' doctor! ' });
    expect(smith.superseded).toEqual([{ id: okafor.id, text: 'My doctor is Dr. Okafor', key: 'doctor' }]);
    // Told without a key, Dr. Weiss is still current: related says it may be the same fact.
    expect(smith.related).toEqual([{ id: weiss.id, text: 'My doctor is Dr. Weiss', key: null }]);
    expect((await store.get(user, smith.id)).key).toBe('doctor');
    expect(await texts(user, 'doctor')).toEqual(['My doctor is Dr. Smith', 'My doctor is Dr. Weiss']);
    await expect(store.remember(user, { text: 'x', key: '!!!' })).rejects.toMatchObject({ fields: { key: 'must contain letters or digits' } });
  });

  it('holds one current memory per key as a database rule, whoever writes', async () => {
    const user = randomUUID();
    await store.remember(user, { text: 'Home city is Oslo', key: 'home city' });
    await expect(
      db.dataSource.query(`INSERT INTO memories (user_id, kind, text, dedupe_key, search_text, key) VALUES ($1, 'fact', 'x', 'x', 'x', 'home city')`, [user]),
    ).rejects.toMatchObject({ code: '23505' });
  });
});

/** Two sessions with open transactions at once exist on a server only: the embedded database runs one session at a time (the CI's PostgreSQL leg runs this). */
const itOnServer = process.env.TEST_DATABASE_URL ? it : it.skip;

describe('supersession under concurrency', () => {
  itOnServer('ends a memory once: of two writers superseding it at once (without the store lock), the second gets nothing back', async () => {
    const user = randomUUID();
    const { id } = await store.remember(user, { text: 'Drives a Prius' });
    /** Supersedes the memory by a new one, in a transaction of `runner` left open; answers what it ended. */
    const supersedeIn = async (runner: QueryRunner, text: string): Promise<unknown[]> => {
      const successor = randomUUID();
      await runner.connect();
      await runner.startTransaction();
      const ended: unknown[] = await runner.query(supersedeSql, [user, successor, null, [id], null]);
      await runner.query(`INSERT INTO memories (id, user_id, kind, text, dedupe_key, search_text) VALUES ($1, $2, 'fact', $3, $3, $3)`, [
        successor,
        user,
        text,
      ]);
      return ended;
    };
    const [first, second] = [db.dataSource.createQueryRunner(), db.dataSource.createQueryRunner()];
    try {
      expect(await supersedeIn(first, 'drives a civic')).toHaveLength(1);
      // The second waits for the first's row lock, then reads the row again.
      const racing = supersedeIn(second, 'drives a golf').then(async (ended) => (await second.commitTransaction(), ended));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await first.commitTransaction();
      await first.release();
      expect(await racing).toEqual([]);
      expect((await store.get(user, id)).supersededBy).not.toBeNull();
      expect((await store.history(user, id, { limit: 10 })).items.map((memory) => memory.text)).toEqual(['drives a civic', 'Drives a Prius']);
    } finally {
      if (!first.isReleased) await first.release();
      await second.release();
    }
  });

  it('leaves one consistent chain when two remembers replace the same memory at once', async () => {
    const user = randomUUID();
    const { id } = await store.remember(user, { text: 'Lives in Vienna' });
    const outcomes = await Promise.allSettled(
      ['Lives in Prague', 'Lives in Budapest', 'Lives in Warsaw'].map((text) => store.remember(user, { text, replaces: [id] })),
    );
    const stored = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(stored).toHaveLength(1);
    for (const outcome of outcomes.filter((entry) => entry.status === 'rejected')) {
      expect((outcome as PromiseRejectedResult).reason.message).toContain(`${id} was already superseded by`);
    }
    const history = await store.history(user, id, { limit: 10 });
    expect(history.items).toHaveLength(2);
    expect((await store.list(user, { limit: 10 })).items).toHaveLength(1);
  });
});

describe('editing validity', () => {
  it('moves valid_from, and the end of what it superseded with it; refuses a start after the end, and a key another current memory holds', async () => {
    const user = randomUUID();
    const old = await store.remember(user, { text: 'Runs 20 km a week', validFrom: day('2021-01-01') });
    const now = await store.remember(user, { text: 'Runs 40 km a week', validFrom: day('2023-01-01'), replaces: [old.id], key: 'running' });
    await store.update(user, now.id, { validFrom: day('2023-05-01') });
    expect((await store.get(user, old.id)).validTo).toEqual(day('2023-05-01'));
    await expect(store.update(user, old.id, { validFrom: day('2024-01-01') })).rejects.toMatchObject({ fields: { validFrom: 'must not be after validTo' } });
    const other = await store.remember(user, { text: 'Swims on Fridays' });
    await expect(store.update(user, other.id, { key: 'Running' })).rejects.toThrow('Another current memory of yours has the key "running"');
    expect((await store.update(user, now.id, { key: null })).key).toBeNull();
    expect((await store.update(user, other.id, { key: 'running' })).key).toBe('running');
  });
});

describe('forget', () => {
  it('forgets all or nothing, refusing ids that are not the caller’s by name', async () => {
    const [user, other] = [randomUUID(), randomUUID()];
    const a = await store.remember(user, { text: 'Likes jazz' });
    const b = await store.remember(user, { text: 'Likes opera' });
    const theirs = await store.remember(other, { text: 'Likes techno' });
    await expect(store.forget(user, [a.id, theirs.id])).rejects.toMatchObject({ fields: { ids: `not memories of yours: ${theirs.id}` } });
    expect(await texts(user, 'likes')).toHaveLength(2);
    expect(await store.forget(user, [a.id, b.id])).toHaveLength(2);
    expect(await texts(user, 'likes', 'history')).toEqual([]);
    expect(await texts(other, 'likes')).toEqual(['Likes techno']);
  });

  it('does not bring a superseded version back when the current one is forgotten', async () => {
    const user = randomUUID();
    const paris = await store.remember(user, { text: 'I live in Paris' });
    const berlin = await store.remember(user, { text: 'I live in Berlin', replaces: [paris.id] });
    await store.forget(user, [berlin.id]);
    expect(await texts(user, 'where do I live')).toEqual([]);
    expect(await texts(user, 'where do I live', 'history')).toEqual(['I live in Paris']);
  });
});

describe('the migration', () => {
  it('makes the memories a database already holds current, valid from their creation', async () => {
    const user = randomUUID();
    // Back to the schema before it: it and the migrations after it undone.
    const undo = MEMORY_MIGRATIONS.length - MEMORY_MIGRATIONS.indexOf(MemoryValidity1797500000000);
    for (let undone = 0; undone < undo; undone++) await db.dataSource.undoLastMigration();
    await db.dataSource.query(
      `INSERT INTO memories (user_id, kind, text, dedupe_key, search_text, created_at) VALUES ($1, 'fact', 'Old fact', 'old fact', 'old fact', '2019-05-04T03:02:01Z')`,
      [user],
    );
    await db.dataSource.runMigrations();
    const [memory] = (await store.list(user, { limit: 10 })).items;
    expect(memory).toMatchObject({ text: 'Old fact', validFrom: new Date('2019-05-04T03:02:01Z'), validTo: null, supersededBy: null, key: null });
  });
});
