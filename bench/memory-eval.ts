/**
 * `npm run eval:memory`: recall quality of `MemoryStore` on the labelled set in memory-eval-set.ts,
 * for the lexical default and for the hybrid path with vectors from a deterministic local test
 * embedder (libs/memory/src/testing/test-embedder.ts) that this script serves over HTTP in
 * OpenAI's `/embeddings` format. Prints recall@5 and MRR per query type and language, and how many
 * times another user's memory came back (must be 0). Then the knowledge-update set (facts that
 * change, memory-update-eval.ts): current-value@1, stale answers in the top 5, as-of accuracy and
 * history completeness, for a client that follows the tool descriptions and one that does not.
 *
 * Runs on an embedded database by default, or on the PostgreSQL server DATABASE_URL names (a new
 * database there, dropped afterwards; without pgvector there, the vector rows say so).
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { MemoryStore, type MemoryOptions } from '@app/memory';
import { MemoryEntity } from '../libs/memory/src/memory.entity.js';
import { migratedDatabase } from '../libs/memory/src/testing/test-database.js';
import { startTestEmbedder, TEST_EMBEDDING_DIMENSIONS } from '../libs/memory/src/testing/test-embedder.js';
import { DECOYS, FACTS, QUERIES, type EvalQuery } from './memory-eval-set.js';
import { evaluateKnowledgeUpdates } from './memory-update-eval.js';

const K = 5;
const CJK = /[\p{Script=Han}]/u;

interface Scored {
  query: EvalQuery;
  rank: number | undefined;
  decoys: number;
}

function summarize(label: string, rows: Scored[]): string {
  if (rows.length === 0) return `  ${label.padEnd(26)} (no queries)`;
  const recall = rows.filter((row) => row.rank !== undefined && row.rank <= K).length / rows.length;
  const mrr = rows.reduce((sum, row) => sum + (row.rank ? 1 / row.rank : 0), 0) / rows.length;
  return `  ${label.padEnd(26)} n=${String(rows.length).padStart(2)}  recall@${K} ${recall.toFixed(3)}  MRR ${mrr.toFixed(3)}`;
}

async function main(): Promise<void> {
  const embedder = await startTestEmbedder();
  const { dataSource, close } = await migratedDatabase(process.env.DATABASE_URL);
  const base: MemoryOptions = {
    enabled: true,
    topK: K,
    maxTextChars: 2000,
    maxPerUser: 100_000,
    deletedRetentionSeconds: 30 * 86400,
    dedupeDistance: 0.02,
    embedWaitMs: 2000,
  };
  const lexical = new MemoryStore(dataSource.getRepository(MemoryEntity), base);
  const hybrid = new MemoryStore(dataSource.getRepository(MemoryEntity), {
    ...base,
    embeddings: { baseUrl: embedder.baseUrl, model: 'test-embedder', dimensions: TEST_EMBEDDING_DIMENSIONS, timeoutMs: 5000 },
  });
  try {
    await hybrid.onApplicationBootstrap();
    const user = randomUUID();
    const other = randomUUID();
    const idOf = new Map<string, string>();
    for (const [name, text] of Object.entries(FACTS)) idOf.set((await hybrid.remember(user, { text })).id, name);
    const decoyIds = new Set<string>();
    for (const text of DECOYS) decoyIds.add((await hybrid.remember(other, { text })).id);
    await hybrid.vectorsSettled();
    console.log(`${process.env.DATABASE_URL ? 'PostgreSQL' : 'Embedded database'}`);
    console.log(
      `${idOf.size} facts for one user (${Object.keys(FACTS).length} written), ${decoyIds.size} decoys for another, ${QUERIES.length} queries, top_k ${K}`,
    );

    const modes: [string, MemoryStore][] = [['lexical (default)', lexical]];
    if (hybrid.vectorSearchEnabled) modes.push(['hybrid (lexical + vectors)', hybrid]);
    else console.log('Vectors: this database has no pgvector, so only the lexical path is measured');
    for (const [mode, store] of modes) {
      const rows: Scored[] = [];
      for (const query of QUERIES) {
        const recalled = await store.recall(user, query.query, K);
        const index = recalled.findIndex((memory) => query.expected.includes(idOf.get(memory.id) ?? ''));
        rows.push({ query, rank: index >= 0 ? index + 1 : undefined, decoys: recalled.filter((memory) => decoyIds.has(memory.id)).length });
      }
      const english = (row: Scored) => !CJK.test(row.query.query);
      console.log(`\n${mode}`);
      console.log(
        summarize(
          'shared words, English',
          rows.filter((row) => row.query.type === 'shared' && english(row)),
        ),
      );
      console.log(
        summarize(
          'shared characters, Chinese',
          rows.filter((row) => row.query.type === 'shared' && !english(row)),
        ),
      );
      console.log(
        summarize(
          'shared, all',
          rows.filter((row) => row.query.type === 'shared'),
        ),
      );
      console.log(
        summarize(
          'paraphrase, English',
          rows.filter((row) => row.query.type === 'paraphrase' && english(row)),
        ),
      );
      console.log(
        summarize(
          'paraphrase, Chinese',
          rows.filter((row) => row.query.type === 'paraphrase' && !english(row)),
        ),
      );
      console.log(summarize('all queries', rows));
      console.log(`  other user's memories returned: ${rows.reduce((sum, row) => sum + row.decoys, 0)}`);
      const missed = rows.filter((row) => row.rank === undefined || row.rank > K).map((row) => `"${row.query.query}"`);
      if (missed.length) console.log(`  missed: ${missed.join(', ')}`);
    }
    console.log("\nTargets (lexical): recall@5 >= 0.9 on shared queries; other user's memories returned: 0");
    await evaluateKnowledgeUpdates(modes);
  } finally {
    await hybrid.onModuleDestroy();
    await close();
    await embedder.close();
  }
}

await main();
