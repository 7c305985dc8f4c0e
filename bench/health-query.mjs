#!/usr/bin/env node
// `npm run bench:health`: how fast family_health's read is ("the newest N observations of one person",
// with and without a code), on PostgreSQL, against the same queries with the lib's indexes dropped (the
// baseline, same data, same run). The tables come from the lib's own migrations in dist (hence the build).
//
// Settings (environment): BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres (a scratch
// database is created beside it and dropped), BENCH_SUBJECTS=200 BENCH_ROWS=400000 BENCH_QUERIES=400.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { positiveInteger } from './settings.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SUBJECTS = positiveInteger('BENCH_SUBJECTS', 200);
const ROWS = positiveInteger('BENCH_ROWS', 400_000);
const QUERIES = positiveInteger('BENCH_QUERIES', 400);
const adminUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');

const migration = async (file, name) => new (await import(pathToFileURL(path.join(root, 'dist', file)).href))[name]();
const migrations = [
  await migration('libs/auth/src/migrations/1796083200000-create-auth-tables.js', 'CreateAuthTables1796083200000'),
  await migration('libs/health/src/migrations/1796094249000-create-health-tables.js', 'CreateHealthTables1796094249000'),
];

// The SQL ObservationsService.newest sends (TypeORM's aliases aside).
const NEWEST = 'SELECT id, resource, clinical_at FROM health_observations WHERE subject_id = $1 ORDER BY clinical_at DESC, id DESC LIMIT 20';
const NEWEST_BY_CODE =
  'SELECT id, resource, clinical_at FROM health_observations WHERE subject_id = $1 AND code = $2 ORDER BY clinical_at DESC, id DESC LIMIT 20';

const database = `bench_health_${process.pid}`;
const admin = new pg.Client({ connectionString: adminUrl.href });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const client = new pg.Client({ connectionString: Object.assign(new URL(adminUrl.href), { pathname: `/${database}` }).href });
try {
  await client.connect();
  const runner = { query: (sql, params) => client.query(sql, params).then((result) => result.rows) };
  for (const step of migrations) await step.up(runner);

  console.log(`Seeding ${ROWS} observations of ${SUBJECTS} people (20 codes, two years)...`);
  const users = await runner.query(`INSERT INTO users (issuer, subject) SELECT 'bench', 's' || n FROM generate_series(1, $1) n RETURNING id`, [SUBJECTS]);
  const ids = users.map((row) => row.id);
  await client.query(
    `INSERT INTO health_observations (id, subject_id, resource, code, display, value_numeric, clinical_at)
     SELECT gen_random_uuid(), ($1::uuid[])[1 + (n % $2::int)], '{"resourceType":"Observation","status":"final","code":{"text":"x"}}',
            'code-' || ((n / $2::int) % 20), 'Display ' || ((n / $2::int) % 20), random() * 100, now() - random() * interval '730 days'
       FROM generate_series(1, $3) n`,
    [ids, SUBJECTS, ROWS],
  );
  await client.query('ANALYZE health_observations');

  const time = async (sql, withCode) => {
    const samples = [];
    for (let i = 0; i < QUERIES; i++) {
      const subject = ids[(i * 7919) % ids.length];
      const start = process.hrtime.bigint();
      const result = await client.query(sql, withCode ? [subject, `code-${i % 20}`] : [subject]);
      samples.push(Number(process.hrtime.bigint() - start) / 1000);
      if (result.rows.length !== 20) throw new Error(`expected 20 rows, got ${result.rows.length}`);
    }
    samples.sort((a, b) => a - b);
    return { p50: samples[Math.floor(samples.length / 2)], p99: samples[Math.floor(samples.length * 0.99)] };
  };
  const cases = async () => ({ newest: await time(NEWEST, false), byCode: await time(NEWEST_BY_CODE, true) });
  await cases(); // warm-up
  const indexed = await cases();
  await client.query('DROP INDEX health_observations_subject_clinical_idx; DROP INDEX health_observations_subject_code_clinical_idx');
  await client.query('ANALYZE health_observations');
  const baseline = await cases();

  const row = (name, measured, base) =>
    `| ${name} | ${measured.p50.toFixed(0)} | ${measured.p99.toFixed(0)} | ${base.p50.toFixed(0)} | ${base.p99.toFixed(0)} | ${(base.p50 / measured.p50).toFixed(1)}x |`;
  console.log(`\n${QUERIES} queries each, ${ROWS} rows, ${SUBJECTS} people (µs, one connection, round trip included)\n`);
  console.log('| newest 20 | p50 | p99 | without the indexes p50 | p99 | speed-up |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  console.log(row('of one person', indexed.newest, baseline.newest));
  console.log(row('of one person, one code', indexed.byCode, baseline.byCode));
} finally {
  await client.end();
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.end();
}
