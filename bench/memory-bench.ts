/**
 * `npm run bench:memory`: remember and recall latency at 10k and 100k memories for one user, in
 * one table of 1M rows, on the PostgreSQL server DATABASE_URL names (a new database is created
 * there and dropped afterwards).
 *
 * The two sizes are measured in the same run, on the same table, interleaved, so the ratio between
 * them is the figure that says whether an index serves recall (about 1) or a scan of the user's
 * rows does (about 10). Rows are generated in SQL (generate_series): sentences of 8 to 14 words
 * drawn with a skew (the commonest word in about one sentence in ten, most words rare) from
 * 8,000 made-up words, each
 * ending in a unique "entry" number so no two are duplicates. Queries are three words taken from
 * the measured user's own memories, so every query has matches among their rows.
 *
 * Settings (environment): DATABASE_URL (required), BENCH_TOTAL_ROWS=1000000, BENCH_QUERIES=200.
 * The bench reports; it does not assert the targets (recall p95 <= 30 ms at 100k, ratio < 2).
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { MemoryStore } from '@app/memory';
import { migratedDatabase } from '../libs/memory/src/testing/test-database.js';
import { lexicalCandidatesSql, candidateCount } from '../libs/memory/src/retrieval/retrieval-sql.js';
import { searchQueryText, vocabularyWords } from '../libs/memory/src/text/memory-text.js';

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('Set DATABASE_URL to a PostgreSQL server (postgres://user@host:port/database)');
const totalRows = Number(process.env.BENCH_TOTAL_ROWS ?? 1_000_000);
const queryCount = Number(process.env.BENCH_QUERIES ?? 200);
const SMALL = 10_000;
const LARGE = 100_000;
const OTHERS_PER_USER = 100;

const syllables = ['ka', 'lo', 'mi', 'tren', 'sul', 'bor', 've', 'dan', 'ri', 'pol', 'zen', 'at', 'qui', 'mor', 'fe', 'ness', 'gar', 'tu', 'lin', 'sho'];

/** Inserts `count` generated memories for `userId`; the word generator is a pure function of the row number. */
async function insertGenerated(db: DataSource, userId: string | null, count: number, offset: number): Promise<void> {
  await db.query(
    `INSERT INTO memories (user_id, kind, text, dedupe_key, search_text, created_at, updated_at)
     SELECT u, k, t, t, t, c, c FROM (
       SELECT coalesce($1::uuid, md5('bench-other-' || (n / ${OTHERS_PER_USER}))::uuid) AS u,
              (ARRAY['fact', 'preference', 'episode'])[1 + n % 3] AS k,
              (SELECT string_agg(
                        s[1 + w % 20] || s[1 + (w / 20) % 20] || s[1 + (w / 400) % 20], ' ')
                 FROM (SELECT floor(8000 * power(((hashint8(n * 31 + i) & 2147483647)::float8 / 2147483647), 2))::int AS w
                         FROM generate_series(1, 8 + n % 7) AS i) AS words) || ' entry ' || n AS t,
              now() - make_interval(secs => n % 31536000) AS c
         FROM generate_series($2::bigint, $2::bigint + $3::bigint - 1) AS n, (SELECT $4::text[] AS s) AS vocabulary
     ) AS generated`,
    [userId, offset, count, syllables],
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1]! };
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const format = (s: { p50: number; p95: number; max: number }) => `p50 ${s.p50.toFixed(2)} ms  p95 ${s.p95.toFixed(2)} ms  max ${s.max.toFixed(2)} ms`;

async function main(): Promise<void> {
  const started = Date.now();
  const { dataSource: db, close } = await migratedDatabase(serverUrl);
  try {
    const small = randomUUID();
    const large = randomUUID();
    const others = totalRows - SMALL - LARGE;
    console.log(`Loading ${totalRows.toLocaleString('en')} rows: one user with ${SMALL.toLocaleString('en')}, one with ${LARGE.toLocaleString('en')}, ${others.toLocaleString('en')} over ${Math.ceil(others / OTHERS_PER_USER).toLocaleString('en')} other users`);
    // Bulk loading without the secondary indexes, then building them once, is how one restores a dump too.
    const indexes: { indexname: string; indexdef: string }[] = await db.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('memories', 'memory_words') AND indexname NOT LIKE '%_pkey'`,
    );
    for (const { indexname } of indexes) await db.query(`DROP INDEX ${indexname}`);
    await insertGenerated(db, small, SMALL, 0);
    await insertGenerated(db, large, LARGE, SMALL);
    const chunk = 100_000;
    for (let done = 0; done < others; done += chunk) {
      await insertGenerated(db, null, Math.min(chunk, others - done), SMALL + LARGE + done);
      process.stdout.write(`  ${(SMALL + LARGE + Math.min(others, done + chunk)).toLocaleString('en')} rows\r`);
    }
    console.log('\nCollecting each user\'s vocabulary');
    // What the store's addVocabulary does per remember; the generated texts are lower-case ASCII already.
    await db.query(
      `INSERT INTO memory_words (user_id, word)
       SELECT DISTINCT user_id, word FROM memories, unnest(string_to_array(dedupe_key, ' ')) AS word
        WHERE length(word) >= 3 AND word ~ '[a-z]'`,
    );
    await db.query('VACUUM ANALYZE memory_words');
    console.log(`Building ${indexes.length} indexes`);
    for (const { indexdef } of indexes) await db.query(indexdef);
    await db.query('VACUUM ANALYZE memories');
    console.log(`Loaded in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const store = new MemoryStore(db, { enabled: true, topK: 5, maxTextChars: 2000, maxPerUser: 1_000_000, dedupeDistance: 0.05, embedWaitMs: 0 });
    const queriesFor = async (userId: string): Promise<string[]> => {
      const rows: { text: string }[] = await db.query(`SELECT text FROM memories WHERE user_id = $1 ORDER BY md5(id::text) LIMIT $2`, [userId, queryCount]);
      return rows.map(({ text }, index) => {
        const words = text.split(' ').slice(0, -2);
        return [0, 1, 2].map((shift) => words[(index + shift * 3) % words.length]).join(' ');
      });
    };
    const queries = { small: await queriesFor(small), large: await queriesFor(large) };
    // Every fourth query has a misspelt word (a letter dropped), which the correction path handles.
    const misspell = (query: string, index: number) => (index % 4 === 3 ? query.replace(/^(\S+ \S)\S/, '$1') : query);
    queries.small = queries.small.map(misspell);
    queries.large = queries.large.map(misspell);

    // Warm-up, then the two sizes interleaved.
    for (const query of queries.small.slice(0, 20)) await store.recall(small, query, 5), await store.recall(large, query, 5);
    const recall = { small: [] as number[], large: [] as number[] };
    let found = 0;
    for (let index = 0; index < queryCount; index++) {
      recall.small.push(await timed(() => store.recall(small, queries.small[index]!, 5)));
      recall.large.push(await timed(async () => (found += (await store.recall(large, queries.large[index]!, 5)).length > 0 ? 1 : 0)));
    }
    const remember = { small: [] as number[], large: [] as number[] };
    for (let index = 0; index < queryCount; index++) {
      remember.small.push(await timed(() => store.remember(small, { text: `bench remember ${index} ${queries.small[index]}` })));
      remember.large.push(await timed(() => store.remember(large, { text: `bench remember ${index} ${queries.large[index]}` })));
    }

    const [{ rows }] = await db.query('SELECT count(*)::int AS rows FROM memories');
    console.log(`\nmemories table: ${rows.toLocaleString('en')} rows; ${queryCount} queries per size; top_k 5; ${found}/${queryCount} queries at 100k found memories`);
    const recallSmall = summary(recall.small);
    const recallLarge = summary(recall.large);
    const rememberSmall = summary(remember.small);
    const rememberLarge = summary(remember.large);
    console.log(`recall_memory (store)   10k: ${format(recallSmall)}`);
    console.log(`recall_memory (store)  100k: ${format(recallLarge)}`);
    console.log(`recall p95 ratio 100k/10k: ${(recallLarge.p95 / recallSmall.p95).toFixed(2)}   (target: p95 <= 30 ms at 100k, ratio < 2)`);
    console.log(`remember (store)        10k: ${format(rememberSmall)}`);
    console.log(`remember (store)       100k: ${format(rememberLarge)}`);
    console.log(`remember p95 ratio 100k/10k: ${(rememberLarge.p95 / rememberSmall.p95).toFixed(2)}`);

    const sample = queries.large[0]!;
    const plan: { 'QUERY PLAN': string }[] = await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${lexicalCandidatesSql}`, [large, searchQueryText(sample), candidateCount(5), vocabularyWords(sample)]);
    console.log(`\nQuery plan of recall's lexical query for the 100k user ("${sample}"):`);
    console.log(plan.map((line) => `  ${line['QUERY PLAN']}`).join('\n'));
  } finally {
    await close();
  }
  console.log(`\nTotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

await main();
