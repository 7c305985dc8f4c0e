import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { describeError, PeriodicJob, type PeriodicJobTiming } from '@app/common';

/** Soon after start-up (tables fill fast when a server is new), then as often as PostgreSQL's autovacuum looks (`autovacuum_naptime`). */
export const MAINTENANCE_TIMING: PeriodicJobTiming = { firstDelayMs: 15 * 1000, intervalMs: 60 * 1000 };

/** A table whose counts crossed autovacuum's thresholds, and what it needs. */
interface TableDue {
  name: string;
  vacuum: boolean;
  analyze: boolean;
}

/**
 * The tables PostgreSQL's autovacuum would vacuum or analyze now, by its own rules and settings
 * (`autovacuum_*_threshold` + `autovacuum_*_scale_factor` × rows): dead rows for VACUUM, rows
 * inserted since the last VACUUM (which keeps the visibility map current for index-only scans),
 * rows changed since the last ANALYZE. A table never analyzed counts as empty.
 */
const TABLES_DUE_SQL = `
  SELECT format('%I.%I', s.schemaname, s.relname) AS name,
         s.n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8
                        + current_setting('autovacuum_vacuum_scale_factor')::float8 * greatest(c.reltuples, 0)
      OR s.n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8
                        + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * greatest(c.reltuples, 0) AS vacuum,
         s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
                        + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0) AS analyze
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
   ORDER BY s.relname`;

/**
 * Autovacuum where none runs. PGlite is PostgreSQL in a single process with no background workers,
 * and a PostgreSQL server may have `autovacuum = off` (this project's CI server has): then nothing
 * vacuums or analyzes our tables, the planner keeps believing a table it has never analyzed is
 * nearly empty, and the dead rows of every UPDATE and DELETE stay. Measured before this job (one
 * user's 12,000 memories, embedded): recall walked every row of the user through a b-tree (59 ms)
 * instead of the full-text index (8 ms after ANALYZE); on PostgreSQL with autovacuum off,
 * `remember`'s duplicate check read 16,000 rows (27 ms) instead of one. So the server does what
 * autovacuum would, with its rules, from a timer: VACUUM and/or ANALYZE of each table due.
 *
 * On the embedded database each statement holds the single session while it runs (on the
 * database's worker thread, not the event loop): queries wait for it, as for any other.
 * `DatabaseModule.forRoot` provides it, knowing which database it runs on.
 */
export class TableMaintenance implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Database');
  private readonly job = new PeriodicJob(
    MAINTENANCE_TIMING,
    () => this.pass(),
    (error) => this.logger.warn(`Could not vacuum or analyze the database: ${describeError(error)}`),
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly embedded: boolean,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.embedded) {
      const [{ autovacuum }] = await this.dataSource.query(`SELECT current_setting('autovacuum') AS autovacuum`);
      if (autovacuum !== 'off') return;
      this.logger.warn(
        "This PostgreSQL server runs with autovacuum off: this server vacuums and analyzes its tables by autovacuum's rules itself, every minute",
      );
    }
    this.job.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** Vacuums and analyzes the tables that need it now; answers what was done to which. */
  async pass(): Promise<TableDue[]> {
    // A single-process PostgreSQL reports its table counts only when told to, at its next statement's end.
    if (this.embedded) await this.dataSource.query('SELECT pg_stat_force_next_flush()');
    const tables: TableDue[] = await this.dataSource.query(TABLES_DUE_SQL);
    const due = tables.filter((table) => table.vacuum || table.analyze);
    for (const table of due) {
      if (this.job.stopping) break;
      const started = performance.now();
      await this.dataSource.query(table.vacuum ? `VACUUM (ANALYZE ${table.analyze}) ${table.name}` : `ANALYZE ${table.name}`);
      this.logger.debug(`${table.vacuum ? 'Vacuumed' : 'Analyzed'} ${table.name} in ${Math.round(performance.now() - started)} ms`);
    }
    return due;
  }
}
