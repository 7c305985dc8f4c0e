import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { TableMaintenance } from './table-maintenance.js';
import { pgliteDriver } from './pglite-pool.js';

const root = mkdtempSync(join(tmpdir(), 'mirobody-maintenance-'));
let db: DataSource;
let maintenance: TableMaintenance;

beforeAll(async () => {
  db = await new DataSource({ type: 'postgres', driver: pgliteDriver({ dataDir: join(root, 'pg'), connectionTimeoutMillis: 5000 }) }).initialize();
  maintenance = new TableMaintenance(db, true);
  await db.query('CREATE TABLE busy (id int PRIMARY KEY, owner int NOT NULL, note text)');
  await db.query('CREATE TABLE quiet (id int PRIMARY KEY)');
}, 120_000);

afterAll(async () => {
  if (db?.isInitialized) await db.destroy();
  rmSync(root, { recursive: true, force: true });
});

/** What the planner believes of a table, and what the statistics say was done to it. */
async function stateOf(table: string) {
  await db.query('SELECT pg_stat_force_next_flush()');
  const [row] = await db.query(
    `SELECT c.reltuples::int AS planned_rows, s.n_dead_tup::int AS dead, s.last_vacuum IS NOT NULL AS vacuumed, s.last_analyze IS NOT NULL AS analyzed
       FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = $1`,
    [table],
  );
  return row;
}

describe('table maintenance on the embedded database (autovacuum by its own rules)', () => {
  it('leaves every table alone while nothing has changed much', async () => {
    await db.query('INSERT INTO quiet SELECT generate_series(1, 10)');
    expect(await maintenance.pass()).toEqual([]);
    expect(await stateOf('quiet')).toMatchObject({ vacuumed: false, analyzed: false });
  });

  it('vacuums and analyzes a table once its inserts cross the thresholds, so the planner knows its size', async () => {
    // Rows written one statement at a time, as a server writes them.
    for (let id = 1; id <= 1200; id++) await db.query('INSERT INTO busy VALUES ($1, 7, $2)', [id, `note ${id}`]);
    expect(await stateOf('busy')).toMatchObject({ planned_rows: -1, vacuumed: false, analyzed: false });

    expect(await maintenance.pass()).toEqual([{ name: 'public.busy', vacuum: true, analyze: true }]);
    expect(await stateOf('busy')).toMatchObject({ planned_rows: 1200, vacuumed: true, analyzed: true });
    expect(await maintenance.pass()).toEqual([]);
  });

  it('vacuums the dead rows of deletes and updates', async () => {
    // 50 + 20% of 1,200 = 290 dead rows make a table due; 300 deletes and 100 updates leave up to
    // 400 (page pruning during the updates may already reclaim some).
    await db.query('DELETE FROM busy WHERE id <= 300');
    for (let id = 301; id <= 400; id++) await db.query('UPDATE busy SET note = $2 WHERE id = $1', [id, `changed ${id}`]);
    expect((await stateOf('busy')).dead).toBeGreaterThan(290);

    expect(await maintenance.pass()).toEqual([{ name: 'public.busy', vacuum: true, analyze: true }]);
    expect(await stateOf('busy')).toMatchObject({ planned_rows: 900, dead: 0 });
  });
});
