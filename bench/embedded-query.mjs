#!/usr/bin/env node
// `npm run bench:embedded`: one query on the embedded database through the app's pool
// (libs/database/src/pglite-pool.ts, as TypeORM uses it: PGlite in a worker thread) against
// PGlite's own `query` on the main thread with the same extensions and settings (the baseline), in
// the same run, on the same data.
//
// Two figures per side: the wall time of a query, and the CPU time the main thread (the server's
// event loop) spends on it. The pool's main-thread time is the cost of its messages to the worker
// and back; the baseline's is the whole query, which a server holding PGlite on its event loop
// pays while serving nothing else. Rounds alternate between the two so that drift on the machine
// affects both alike; medians of rounds.
// Settings (environment): BENCH_ROUNDS=3 BENCH_QUERIES=2000 (per case, side and round).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite/vector';
import { positiveInteger } from './settings.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = positiveInteger('BENCH_ROUNDS', 3);
const QUERIES = positiveInteger('BENCH_QUERIES', 2000);

const { PGlitePool } = await import(pathToFileURL(path.join(root, 'dist/libs/database/src/pglite-pool.js')).href);

const SCHEMA = `
  CREATE TABLE item (id integer PRIMARY KEY, name text NOT NULL, tags text[] NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
  INSERT INTO item (id, name, tags) SELECT n, 'item ' || n, ARRAY['a' || n, 'b'] FROM generate_series(1, 1000) AS n;`;
const CASES = [
  { name: 'a parameter echoed', text: 'SELECT $1::text AS value', params: () => ['x'] },
  { name: 'one row by primary key', text: 'SELECT id, name, tags, created_at FROM item WHERE id = $1', params: (i) => [(i % 1000) + 1] },
  { name: '50 rows', text: 'SELECT id, name, tags, created_at FROM item WHERE id > $1 ORDER BY id LIMIT 50', params: (i) => [i % 900] },
];

const scratch = mkdtempSync(path.join(os.tmpdir(), 'mcp-embedded-query-'));
try {
  const pool = new PGlitePool({ dataDir: path.join(scratch, 'pool') });
  const { client, release } = await new Promise((resolve, reject) =>
    pool.connect((error, client, release) => (error ? reject(error) : resolve({ client, release }))),
  );
  const baseline = new PGlite({ dataDir: path.join(scratch, 'baseline'), extensions: { vector, pg_trgm, btree_gin }, postgresqlconf: ['shared_buffers=8MB'] });
  await baseline.waitReady;
  await client.query(SCHEMA);
  await baseline.exec(SCHEMA);
  const sides = { pool: (text, params) => client.query(text, params), baseline: (text, params) => baseline.query(text, params) };

  // Both answer alike before either is timed.
  for (const { name, text, params } of CASES) {
    // The tables were filled at different instants: created_at is compared by type only.
    const comparable = ({ rows }) =>
      JSON.stringify(rows, function (key, value) {
        return key === 'created_at' ? Object.prototype.toString.call(this[key]) : value;
      });
    const [ours, theirs] = [await sides.pool(text, params(7)), await sides.baseline(text, params(7))];
    if (comparable(ours) !== comparable(theirs))
      throw new Error(`${name}: the pool answered ${JSON.stringify(ours.rows).slice(0, 200)}, PGlite ${JSON.stringify(theirs.rows).slice(0, 200)}`);
  }

  const micros = new Map(CASES.flatMap(({ name }) => Object.keys(sides).map((side) => [`${name}/${side}`, []])));
  const measure = async (side, { text, params }) => {
    const [wallStart, cpuStart] = [performance.now(), process.threadCpuUsage()];
    for (let i = 0; i < QUERIES; i++) await sides[side](text, params(i));
    const { user, system } = process.threadCpuUsage(cpuStart);
    return { wall: ((performance.now() - wallStart) * 1000) / QUERIES, mainThread: (user + system) / QUERIES };
  };
  // A warm-up round (JIT), untimed.
  for (const testCase of CASES) for (const side of Object.keys(sides)) await measure(side, testCase);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const testCase of CASES) {
      const order = round % 2 ? ['pool', 'baseline'] : ['baseline', 'pool'];
      for (const side of order) micros.get(`${testCase.name}/${side}`).push(await measure(side, testCase));
    }
  }
  const median = (values, field) => values.map((value) => value[field]).toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`µs per query, median of ${ROUNDS} rounds of ${QUERIES} (node ${process.version})`);
  console.log(
    `${'case'.padEnd(24)} ${'wall: pool'.padStart(11)} ${'PGlite'.padStart(7)}  ${'main thread: pool'.padStart(18)} ${'PGlite'.padStart(7)}  PGlite / pool`,
  );
  for (const { name } of CASES) {
    const [ours, theirs] = [micros.get(`${name}/pool`), micros.get(`${name}/baseline`)];
    const [wallOurs, wallTheirs, mainOurs, mainTheirs] = [
      median(ours, 'wall'),
      median(theirs, 'wall'),
      median(ours, 'mainThread'),
      median(theirs, 'mainThread'),
    ];
    console.log(
      `${name.padEnd(24)} ${wallOurs.toFixed(1).padStart(11)} ${wallTheirs.toFixed(1).padStart(7)}  ${mainOurs.toFixed(1).padStart(18)} ${mainTheirs.toFixed(1).padStart(7)}  ${(mainTheirs / mainOurs).toFixed(2)}`,
    );
  }
  release();
  await baseline.close();
  await new Promise((resolve) => pool.end(resolve));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
