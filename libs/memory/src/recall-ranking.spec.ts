import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { MemoryEntity } from './memory.entity.js';
import { MemoryStore } from './memory.store.js';
import type { MemoryOptions } from './memory.options.js';
import { migratedDatabase, type MigratedDatabase } from './testing/test-database.js';
import { TEST_MEMORY_OPTIONS } from './testing/test-options.js';

const OPTIONS: MemoryOptions = { ...TEST_MEMORY_OPTIONS, topK: 10 };

let db: MigratedDatabase;
let store: MemoryStore;
const user = randomUUID();

beforeAll(async () => {
  db = await migratedDatabase();
  store = new MemoryStore(db.dataSource.getRepository(MemoryEntity), OPTIONS);
  await store.onApplicationBootstrap();
  // Stored from least to most relevant, so that neither insertion nor recency order gives the expected order.
  for (const text of ['Walks the dog before work', 'Has mint tea with dinner', 'Drinks green tea after lunch', 'Drinks green tea every morning']) {
    await store.remember(user, { text });
  }
}, 120_000);

afterAll(async () => {
  await store?.onModuleDestroy();
  await db?.close();
});

describe('recall ranking', () => {
  it('orders memories by how many of the query words they share, most first, with falling scores', async () => {
    const recalled = await store.recall(user, 'green tea morning');
    expect(recalled.map((memory) => memory.text)).toEqual(['Drinks green tea every morning', 'Drinks green tea after lunch', 'Has mint tea with dinner']);
    const scores = recalled.map((memory) => memory.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(new Set(scores).size).toBe(scores.length);
  });
});
