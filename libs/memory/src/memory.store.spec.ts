import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { MemoryEntity } from './memory.entity.js';
import { MemoryStore } from './memory.store.js';
import { lexicalCandidatesParams, lexicalCandidatesSql, MAX_QUERY_TERMS, RECENT_MEMORIES } from './retrieval/retrieval-sql.js';
import { migratedDatabase, type MigratedDatabase } from './testing/test-database.js';
import { startTestEmbedder, TEST_EMBEDDING_DIMENSIONS, type TestEmbedder } from './testing/test-embedder.js';
import { TEST_MEMORY_OPTIONS } from './testing/test-options.js';

const CREATING = 120_000;

let db: MigratedDatabase;
let store: MemoryStore;
const alice = randomUUID();
const bob = randomUUID();

beforeAll(async () => {
  db = await migratedDatabase();
  store = new MemoryStore(db.dataSource.getRepository(MemoryEntity), TEST_MEMORY_OPTIONS);
  await store.onApplicationBootstrap();
}, CREATING);

afterAll(async () => {
  await store?.onModuleDestroy();
  await db?.close();
});

const texts = async (userId: string, query: string, topK?: number) => (await store.recall(userId, query, topK)).map((memory) => memory.text);

describe('MemoryStore (lexical)', () => {
  it('has a schema that agrees with its entity: the schema builder has nothing to do', async () => {
    const sql = await db.dataSource.driver.createSchemaBuilder().log();
    expect(sql.upQueries.map((query) => query.query)).toEqual([]);
  });

  it('recalls by a shared word stem, best first, with scores in [0, 1]', async () => {
    await store.remember(alice, { text: 'I am allergic to peanuts.' });
    await store.remember(alice, { text: 'My daughter Mia was born in March 2019.', kind: 'fact' });
    await store.remember(alice, { text: 'Prefers window seats on long flights', kind: 'preference' });
    const recalled = await store.recall(alice, 'peanut allergy');
    expect(recalled[0]!.text).toBe('I am allergic to peanuts.');
    for (const memory of recalled) {
      expect(memory.score).toBeGreaterThan(0);
      expect(memory.score).toBeLessThanOrEqual(1);
    }
    expect(await texts(alice, 'which seat on a flight')).toContain('Prefers window seats on long flights');
  });

  it('finds Chinese text by a query of two characters that occur in it', async () => {
    await store.remember(alice, { text: '我每天早上喝一杯黑咖啡，不加糖。' });
    await store.remember(alice, { text: '我的女儿在上海读大学。' });
    expect((await texts(alice, '咖啡'))[0]).toBe('我每天早上喝一杯黑咖啡，不加糖。');
    expect((await texts(alice, '上海'))[0]).toBe('我的女儿在上海读大学。');
  });

  it('finds a memory through a misspelt word', async () => {
    await store.remember(alice, { text: 'Uses a standing desk at the office' });
    expect(await texts(alice, 'standng')).toEqual(['Uses a standing desk at the office']);
    expect(await texts(alice, 'peanutz alergy')).toContain('I am allergic to peanuts.');
  });

  it('stores the same sentence once, whatever its case, spacing, punctuation or width', async () => {
    const first = await store.remember(alice, { text: 'I like green tea', kind: 'fact' });
    const again = await store.remember(alice, { text: '  i LIKE   green tea!! ', kind: 'preference' });
    const wide = await store.remember(alice, { text: 'Ｉ　ｌｉｋｅ　ｇｒｅｅｎ　ｔｅａ', kind: 'preference' });
    expect(first.deduplicated).toBe(false);
    expect(again).toMatchObject({ id: first.id, deduplicated: true, superseded: [] });
    expect(wide).toMatchObject({ id: first.id, deduplicated: true, superseded: [] });
    expect((await store.get(alice, first.id)).kind).toBe('preference');
    expect((await store.list(alice, { limit: 50 })).items.filter((memory) => memory.text.toLowerCase().includes('green tea'))).toHaveLength(1);
  });

  it('keeps users apart: nothing of one is recalled, read, changed or deleted by the other', async () => {
    const { id } = await store.remember(bob, { text: 'Bob is allergic to shellfish' });
    expect(await texts(alice, 'shellfish allergy')).not.toContain('Bob is allergic to shellfish');
    expect(await texts(bob, 'peanut allergy')).not.toContain('I am allergic to peanuts.');
    await expect(store.get(alice, id)).rejects.toThrow(`No memory with id ${id}`);
    await expect(store.update(alice, id, { kind: 'episode' })).rejects.toThrow('No memory with id');
    await expect(store.softDelete(alice, id)).rejects.toThrow('No memory with id');
    await expect(store.hardDelete(alice, id)).rejects.toThrow('No memory with id');
    await expect(store.get(alice, 'not-a-uuid')).rejects.toThrow('No memory with id not-a-uuid');
    expect((await store.get(bob, id)).text).toBe('Bob is allergic to shellfish');
  });

  it('never recalls or lists a soft-deleted memory, and stores its text anew afterwards', async () => {
    const { id } = await store.remember(bob, { text: 'Parks the car on level 3' });
    await store.softDelete(bob, id);
    expect(await texts(bob, 'car parked level')).not.toContain('Parks the car on level 3');
    expect((await store.list(bob, { limit: 50 })).items.map((memory) => memory.id)).not.toContain(id);
    await expect(store.softDelete(bob, id)).rejects.toThrow('No memory with id');
    const again = await store.remember(bob, { text: 'Parks the car on level 3' });
    expect(again.id).not.toBe(id);
    // A Date of the embedded database's worker thread is not of this test's realm: its time is what counts.
    expect((await store.exportAll(bob)).find((memory) => memory.id === id)?.deletedAt?.getTime()).toBeGreaterThan(0);
  });

  it('refuses empty, overlong and punctuation-only texts and unknown kinds, naming the field', async () => {
    await expect(store.remember(alice, { text: '   ' })).rejects.toMatchObject({ fields: { text: 'must not be empty' } });
    await expect(store.remember(alice, { text: 'x'.repeat(201) })).rejects.toThrow('text has 201 characters; the limit is 200 (MEMORY_MAX_TEXT_CHARS)');
    await expect(store.remember(alice, { text: '!!! ...' })).rejects.toMatchObject({ fields: { text: 'must contain letters or digits' } });
    await expect(store.remember(alice, { text: 'ok', kind: 'secret' as never })).rejects.toThrow('kind must be one of fact, preference, episode');
    await expect(store.recall(alice, 'tea', 51)).rejects.toThrow('top_k must be a whole number from 1 to 50');
    await expect(store.recall(alice, 'tea '.repeat(250) + 'x')).rejects.toMatchObject({
      message: 'query has 1001 characters; the limit is 1000',
      fields: { query: 'at most 1000 characters' },
    });
  });

  it('refuses a new memory beyond MEMORY_MAX_PER_USER but still refreshes an existing one', async () => {
    const tight = new MemoryStore(db.dataSource.getRepository(MemoryEntity), { ...TEST_MEMORY_OPTIONS, maxPerUser: 2 });
    const carol = randomUUID();
    await tight.remember(carol, { text: 'one' });
    await tight.remember(carol, { text: 'two' });
    await expect(tight.remember(carol, { text: 'three' })).rejects.toThrow('MEMORY_MAX_PER_USER');
    expect((await tight.remember(carol, { text: 'ONE' })).deduplicated).toBe(true);
  });

  it("keeps each user's live and held counts exact whoever writes, one row or many, and forgets a user who holds none", async () => {
    const counts = async (userId: string) => {
      const kept = await db.dataSource.query('SELECT live, held FROM memory_counts WHERE user_id = $1', [userId]);
      const [actual] = await db.dataSource.query(
        'SELECT (count(*) FILTER (WHERE deleted_at IS NULL))::int AS live, count(*)::int AS held FROM memories WHERE user_id = $1',
        [userId],
      );
      return { kept: kept[0] ?? null, actual };
    };
    const grace = randomUUID();
    const heidi = randomUUID();
    const { id } = await store.remember(grace, { text: 'Grace swims on Mondays' });
    await store.remember(grace, { text: 'Grace swims on Mondays!' });
    await store.remember(grace, { text: 'Grace drinks tea' });
    expect(await counts(grace)).toEqual({ kept: { live: 2, held: 2 }, actual: { live: 2, held: 2 } });

    await store.softDelete(grace, id);
    await store.update(grace, (await store.list(grace, { limit: 1 })).items[0]!.id, { kind: 'preference' });
    expect(await counts(grace)).toEqual({ kept: { live: 1, held: 2 }, actual: { live: 1, held: 2 } });

    // An administrator's SQL: many rows of two users in one statement each way.
    await db.dataSource.query(
      `INSERT INTO memories (user_id, kind, text, dedupe_key, search_text)
       SELECT u, 'fact', 'bulk ' || n, 'bulk ' || n, 'bulk ' || n FROM unnest($1::uuid[]) AS u, generate_series(1, 300) AS n`,
      [[grace, heidi]],
    );
    await db.dataSource.query(`UPDATE memories SET deleted_at = now() WHERE user_id = ANY($1) AND text LIKE 'bulk 1%'`, [[grace, heidi]]);
    await db.dataSource.query(`UPDATE memories SET deleted_at = NULL WHERE user_id = $1 AND text = 'bulk 10'`, [heidi]);
    expect(await counts(grace)).toEqual({ kept: { live: 190, held: 302 }, actual: { live: 190, held: 302 } });
    expect(await counts(heidi)).toEqual({ kept: { live: 190, held: 300 }, actual: { live: 190, held: 300 } });

    await store.hardDelete(grace, id);
    expect(await counts(grace)).toEqual({ kept: { live: 190, held: 301 }, actual: { live: 190, held: 301 } });
    await store.eraseAll(grace);
    expect(await counts(grace)).toEqual({ kept: null, actual: { live: 0, held: 0 } });
    expect(await counts(heidi)).toEqual({ kept: { live: 190, held: 300 }, actual: { live: 190, held: 300 } });
  });

  it('counts the memories a database already holds when the counts arrive with an upgrade', async () => {
    const ivan = randomUUID();
    await store.remember(ivan, { text: 'Ivan kept this before the upgrade' });
    const { id } = await store.remember(ivan, { text: 'and deleted this one' });
    await store.softDelete(ivan, id);
    // Back to before the counts: the validity migration came after them.
    await db.dataSource.undoLastMigration();
    await db.dataSource.undoLastMigration();
    await db.dataSource.query(
      `INSERT INTO memories (user_id, kind, text, dedupe_key, search_text) SELECT $1, 'fact', 'old ' || n, 'old ' || n, 'old ' || n FROM generate_series(1, 5) AS n`,
      [ivan],
    );
    await db.dataSource.runMigrations();
    expect(await db.dataSource.query('SELECT live, held FROM memory_counts WHERE user_id = $1', [ivan])).toEqual([{ live: 6, held: 7 }]);
  });

  it('pages newest first with a cursor, filters by kind, and refuses a forged cursor', async () => {
    const dave = randomUUID();
    for (let index = 0; index < 5; index++) await store.remember(dave, { text: `note number ${index}`, kind: index % 2 ? 'episode' : 'fact' });
    const first = await store.list(dave, { limit: 2 });
    const second = await store.list(dave, { limit: 2, cursor: first.nextCursor! });
    const third = await store.list(dave, { limit: 2, cursor: second.nextCursor! });
    expect([...first.items, ...second.items, ...third.items].map((memory) => memory.text)).toEqual([4, 3, 2, 1, 0].map((index) => `note number ${index}`));
    expect(third.nextCursor).toBeNull();
    expect((await store.list(dave, { limit: 50, kind: 'episode' })).items.map((memory) => memory.text)).toEqual(['note number 3', 'note number 1']);
    await expect(store.list(dave, { limit: 2, cursor: 'bm9wZQ' })).rejects.toMatchObject({ fields: { cursor: 'not a cursor this server issued' } });
  });

  it('edits text and kind, refuses an edit that duplicates another memory, and finds the new text', async () => {
    const erin = randomUUID();
    const { id } = await store.remember(erin, { text: 'Lives in Berlin' });
    await store.remember(erin, { text: 'Works in Munich' });
    const edited = await store.update(erin, id, { text: 'Lives in Hamburg', kind: 'episode' });
    expect(edited).toMatchObject({ text: 'Lives in Hamburg', kind: 'episode' });
    expect(await texts(erin, 'Hamburg')).toEqual(['Lives in Hamburg']);
    await expect(store.update(erin, id, { text: 'works in munich.' })).rejects.toThrow('Another memory of yours already says the same thing');
  });

  it("erases all of a user's memories, leaving nothing recallable", async () => {
    const frank = randomUUID();
    await store.remember(frank, { text: 'Frank plays chess' });
    expect(await store.eraseAll(frank)).toBe(1);
    expect(await texts(frank, 'chess')).toEqual([]);
    expect(await store.countFor(frank)).toBe(0);
  });

  it('answers the disabled message when switched off', async () => {
    const off = new MemoryStore(db.dataSource.getRepository(MemoryEntity), { ...TEST_MEMORY_OPTIONS, enabled: false });
    await expect(off.remember(alice, { text: 'x' })).rejects.toThrow('Long-term memory is not enabled on this server');
    await expect(off.recall(alice, 'x')).rejects.toThrow('Long-term memory is not enabled on this server');
  });
});

describe('the lexical query', () => {
  it(`searches the first ${MAX_QUERY_TERMS} distinct words of a query of any length (20,000 words overflowed PostgreSQL's stack)`, async () => {
    const ivan = randomUUID();
    await store.remember(ivan, { text: 'Ivan saw a zebra at the zoo' });
    await store.remember(ivan, { text: 'Ivan keeps a quokka photo' });
    // About 118,000 characters: 20,000 distinct words between a first and a last one that each memory holds.
    const filler = Array.from({ length: 20_000 }, (_, index) => `w${index.toString(36)}x`).join(' ');
    const rows: { list: string; text: string }[] = await db.dataSource.query(
      lexicalCandidatesSql,
      lexicalCandidatesParams(ivan, `zebra ${filler} quokka`, 20, undefined),
    );
    expect(rows.map((row) => [row.list, row.text])).toEqual([['fts', 'Ivan saw a zebra at the zoo']]);
  }, 60_000);
});

describe(`a user with more than the ${RECENT_MEMORIES} memories a search reads first`, () => {
  const carol = randomUUID();
  const notes = RECENT_MEMORIES + 20;

  beforeAll(async () => {
    await store.remember(carol, { text: 'My ferritin level was 45 in March' });
    for (let n = 0; n < notes; n++) await store.remember(carol, { text: `Note ${n}: walked the dog on day ${n}` });
  }, CREATING);

  it('finds an older memory through a word that few of the newest hold, in recall and in related', async () => {
    expect(await texts(carol, 'ferritin')).toEqual(['My ferritin level was 45 in March']);
    const told = await store.remember(carol, { text: 'My ferritin level was 60 in June' });
    expect(told.related.map((memory) => memory.text)).toEqual(['My ferritin level was 45 in March']);
  });

  it('answers words that most memories hold from the newest ones', async () => {
    expect(await texts(carol, 'walked the dog', 2)).toEqual([
      `Note ${notes - 1}: walked the dog on day ${notes - 1}`,
      `Note ${notes - 2}: walked the dog on day ${notes - 2}`,
    ]);
    const told = await store.remember(carol, { text: `Note ${notes}: walked the dog on day ${notes}` });
    expect(told.related).toHaveLength(3);
  });
});

describe('MemoryStore with vectors (test embedder over HTTP)', () => {
  let embedder: TestEmbedder;
  let hybrid: MemoryStore;
  const gina = randomUUID();

  beforeAll(async () => {
    embedder = await startTestEmbedder();
    hybrid = new MemoryStore(db.dataSource.getRepository(MemoryEntity), {
      ...TEST_MEMORY_OPTIONS,
      embedWaitMs: 2000,
      embeddings: { baseUrl: embedder.baseUrl, model: 'test', dimensions: TEST_EMBEDDING_DIMENSIONS, timeoutMs: 2000 },
    });
    await hybrid.onApplicationBootstrap();
  });

  afterAll(async () => {
    await hybrid?.onModuleDestroy();
    await embedder?.close();
  });

  const vectorsAvailable = () => hybrid.vectorSearchEnabled;

  it('uses vectors where the database has pgvector (the embedded one does; PostgreSQL here does not)', async () => {
    const [{ available }] = await db.dataSource.query(`SELECT to_regclass('memory_embeddings') IS NOT NULL AS available`);
    expect(hybrid.vectorSearchEnabled).toBe(available);
  });

  it('finds a paraphrase that shares no word with the memory', async () => {
    if (!vectorsAvailable()) return;
    await hybrid.remember(gina, { text: 'I drive a 2017 Toyota Prius' });
    await hybrid.remember(gina, { text: 'Allergic to shellfish' });
    expect((await hybrid.recall(gina, 'which automobile', 5)).map((memory) => memory.text)).toContain('I drive a 2017 Toyota Prius');
    expect((await store.recall(gina, 'which automobile', 5)).map((memory) => memory.text)).toEqual([]);
  });

  it('refreshes a near-duplicate by vector distance instead of storing it', async () => {
    if (!vectorsAvailable()) return;
    const first = await hybrid.remember(gina, { text: 'My puppy is called Rex' });
    const again = await hybrid.remember(gina, { text: 'My dog is called Rex' });
    expect(again).toMatchObject({ id: first.id, deduplicated: true });
  });

  it('stores without a vector while the provider is down, recalls lexically meanwhile, and fills the vector in afterwards', async () => {
    if (!vectorsAvailable()) return;
    embedder.failing = true;
    const { id } = await hybrid.remember(gina, { text: 'Goes swimming on Tuesdays' });
    expect((await hybrid.recall(gina, 'swimming', 5)).map((memory) => memory.id)).toEqual([id]);
    embedder.failing = false;
    await hybrid.vectorsSettled();
    const [row] = await db.dataSource.query('SELECT model FROM memory_embeddings WHERE memory_id = $1', [id]);
    expect(row).toEqual({ model: 'test' });
  }, 30_000);

  it('drops the vector of a deleted memory, so it is never recalled by meaning either', async () => {
    if (!vectorsAvailable()) return;
    const { id } = await hybrid.remember(gina, { text: 'Plays the guitar in a band' });
    await hybrid.softDelete(gina, id);
    expect((await hybrid.recall(gina, 'music', 50)).map((memory) => memory.id)).not.toContain(id);
    expect(await db.dataSource.query('SELECT 1 FROM memory_embeddings WHERE memory_id = $1', [id])).toEqual([]);
  });
});
