/**
 * `npm run bench:memory`: remember and recall latency at 10k and 100k memories for one user, in
 * one table of 1M rows, on the PostgreSQL server DATABASE_URL names (a new database is created
 * there and dropped afterwards) or, without it, on the embedded database (in a temporary data
 * directory). The real server runs on that database; recall is timed through `MemoryStore` and
 * through `/mcp` (tools/call of recall_memory with the official client).
 *
 * The two sizes are measured in the same run, on the same table, interleaved, so the ratio between
 * them is the figure that says whether an index serves recall (about 1) or a scan of the user's
 * rows does (about 10). Rows are generated in SQL (generate_series): sentences of 8 to 14 words
 * drawn with a skew (the commonest word in about one sentence in ten, most words rare) from
 * 8,000 made-up words, each
 * ending in a unique "entry" number so no two are duplicates. Queries are three words taken from
 * the measured user's own memories, so every query has matches among their rows.
 *
 * Settings (environment): DATABASE_URL (unset: embedded), BENCH_TOTAL_ROWS=1000000, BENCH_QUERIES=200.
 * The bench reports; it does not assert the targets (recall p95 <= 30 ms at 100k, ratio < 2).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { signToken } from '@app/auth';
import { MemoryStore } from '@app/memory';
import { loadAppConfig } from '../apps/server/src/config.js';
import { createApp } from '../apps/server/src/create-app.js';
import { lexicalCandidatesParams, lexicalCandidatesSql, candidateCount } from '../libs/memory/src/retrieval/retrieval-sql.js';

const serverUrl = process.env.DATABASE_URL || undefined;
const totalRows = Number(process.env.BENCH_TOTAL_ROWS ?? 1_000_000);
const queryCount = Number(process.env.BENCH_QUERIES ?? 200);
const SMALL = 10_000;
const LARGE = 100_000;
const OTHERS_PER_USER = 100;

const syllables = ['ka', 'lo', 'mi', 'tren', 'sul', 'bor', 've', 'dan', 'ri', 'pol', 'zen', 'at', 'qui', 'mor', 'fe', 'ness', 'gar', 'tu', 'lin', 'sho'];

/** Inserts `count` generated memories for `userId`; the word generator is a pure function of the row number. */
async function insertGenerated(db: DataSource, userId: string | null, count: number, offset: number): Promise<void> {
  await db.query(
    `INSERT INTO memories (user_id, kind, text, dedupe_key, search_text, created_at, updated_at, valid_from)
     SELECT u, k, t, t, t, c, c, c FROM (
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

async function onServer(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

const JWT_SECRET = 'a-bench-jwt-secret-of-at-least-32-characters';

/** A client of the running server, authenticated as `subject`; its first call creates the user. */
async function clientFor(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  await client.callTool({ name: 'whoami', arguments: {} });
  return client;
}

async function main(): Promise<void> {
  const started = Date.now();
  const name = `mirobody_bench_memory_${process.pid}`;
  let databaseUrl: URL | undefined;
  if (serverUrl) {
    await onServer(`CREATE DATABASE ${name}`);
    databaseUrl = new URL(serverUrl);
    databaseUrl.pathname = `/${name}`;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'mirobody-bench-'));
  const config = loadAppConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    ...(databaseUrl && { DATABASE_URL: databaseUrl.href }),
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_REQUESTS: '1000000',
    MEMORY_MAX_PER_USER: '1000000',
  });
  const app = await createApp(config, { logger: false });
  await app.listen(0, '127.0.0.1');
  const url = new URL(`http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`);
  const clients: Client[] = [];
  try {
    const db = app.get(DataSource);
    const store = app.get(MemoryStore);
    const signing = { ...config.auth, dataDir: config.DATA_DIR };
    const client = {
      small: await clientFor(url, await signToken(signing, { subject: 'bench-10k', ttl: '2h' })),
      large: await clientFor(url, await signToken(signing, { subject: 'bench-100k', ttl: '2h' })),
    };
    clients.push(client.small, client.large);
    const idOf = async (subject: string): Promise<string> => (await db.query('SELECT id FROM users WHERE subject = $1', [subject]))[0].id;
    const small = await idOf('bench-10k');
    const large = await idOf('bench-100k');
    const others = totalRows - SMALL - LARGE;
    console.log(
      `Loading ${totalRows.toLocaleString('en')} rows: one user with ${SMALL.toLocaleString('en')}, one with ${LARGE.toLocaleString('en')}, ${others.toLocaleString('en')} over ${Math.ceil(others / OTHERS_PER_USER).toLocaleString('en')} other users`,
    );
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
    console.log("\nCollecting each user's vocabulary");
    // What the store does per remember; the generated texts are lower-case ASCII already.
    await db.query(
      `INSERT INTO memory_words (user_id, word)
       SELECT DISTINCT user_id, word FROM memories, unnest(string_to_array(dedupe_key, ' ')) AS word
        WHERE length(word) >= 3 AND word ~ '[a-z]'`,
    );
    console.log(`Building ${indexes.length} indexes`);
    for (const { indexdef } of indexes) await db.query(indexdef);
    await db.query('VACUUM ANALYZE memories');
    await db.query('VACUUM ANALYZE memory_words');
    console.log(`Loaded in ${((Date.now() - started) / 1000).toFixed(0)} s`);

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
    const viaMcp = (which: 'small' | 'large', query: string) => client[which].callTool({ name: 'recall_memory', arguments: { query, top_k: 5 } });

    // Warm-up, then the two sizes interleaved.
    for (const query of queries.small.slice(0, 20)) {
      await store.recall(small, query, 5);
      await store.recall(large, query, 5);
      await viaMcp('large', query);
    }
    const recall = { small: [] as number[], large: [] as number[], mcpSmall: [] as number[], mcpLarge: [] as number[] };
    let found = 0;
    for (let index = 0; index < queryCount; index++) {
      recall.small.push(await timed(() => store.recall(small, queries.small[index]!, 5)));
      recall.large.push(await timed(async () => (found += (await store.recall(large, queries.large[index]!, 5)).length > 0 ? 1 : 0)));
      recall.mcpSmall.push(await timed(() => viaMcp('small', queries.small[index]!)));
      recall.mcpLarge.push(await timed(() => viaMcp('large', queries.large[index]!)));
    }
    const remember = { small: [] as number[], large: [] as number[] };
    for (let index = 0; index < queryCount; index++) {
      remember.small.push(await timed(() => store.remember(small, { text: `bench remember ${index} ${queries.small[index]}` })));
      remember.large.push(await timed(() => store.remember(large, { text: `bench remember ${index} ${queries.large[index]}` })));
    }

    const [{ rows }] = await db.query('SELECT count(*)::int AS rows FROM memories');
    console.log(
      `\n${serverUrl ? 'PostgreSQL' : 'embedded database'}, memories table: ${rows.toLocaleString('en')} rows; ${queryCount} queries per size (every fourth misspelt); top_k 5; ${found}/${queryCount} queries at 100k found memories`,
    );
    const line = (label: string, samples10k: number[], samples100k: number[]) => {
      const [a, b] = [summary(samples10k), summary(samples100k)];
      console.log(`${label.padEnd(24)}  10k: ${format(a)}`);
      console.log(`${label.padEnd(24)} 100k: ${format(b)}`);
      console.log(`${label.padEnd(24)} p95 ratio 100k/10k: ${(b.p95 / a.p95).toFixed(2)}`);
    };
    line('recall_memory (store)', recall.small, recall.large);
    line('recall_memory (/mcp)', recall.mcpSmall, recall.mcpLarge);
    line('remember (store)', remember.small, remember.large);
    console.log('Targets: recall_memory p95 <= 30 ms at 100k through the store; its p95 ratio 100k/10k < 2');

    const sample = queries.large[3]!;
    const plan: { 'QUERY PLAN': string }[] = await db.query(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${lexicalCandidatesSql}`,
      lexicalCandidatesParams(large, sample, candidateCount(5), undefined),
    );
    console.log(`\nQuery plan of recall's lexical query for the 100k user ("${sample}", misspelt):`);
    console.log(plan.map((row) => `  ${row['QUERY PLAN']}`).join('\n'));
  } finally {
    for (const client of clients) await client.close();
    await app.close();
    if (serverUrl) await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\nTotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

await main();
