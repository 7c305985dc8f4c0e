import { existsSync, readdirSync } from 'node:fs';
import type { DataSource } from 'typeorm';
import { embeddedDir } from './database.module.js';
import { lockDirectory } from './directory-lock.js';
import { PGlitePool, restrictFilesToOwner, restrictToOwner } from './pglite-pool.js';

/** The pool TypeORM built for the data source, when it is the embedded database's. */
function embeddedPool(dataSource: DataSource): PGlitePool | undefined {
  const pool = (dataSource.driver as unknown as { master?: unknown }).master;
  return pool instanceof PGlitePool ? pool : undefined;
}

/** Whether the data source runs on the embedded database (PGlite), which only this process can read. */
export const isEmbeddedDatabase = (dataSource: DataSource): boolean => embeddedPool(dataSource) !== undefined;

/**
 * A consistent copy of the running embedded database, as a tar archive of its data directory
 * (see `PGlitePool.snapshot`); `alongside` runs at the same moment, while no query can.
 */
export function snapshotEmbeddedDatabase(dataSource: DataSource, alongside: () => Promise<void>): Promise<Buffer> {
  const pool = embeddedPool(dataSource);
  if (!pool) throw new Error('The database is PostgreSQL, not the embedded one: back it up with pg_dump');
  return pool.snapshot(alongside);
}

/**
 * Writes an archive from `snapshotEmbeddedDatabase` as the embedded database of the data directory
 * `dataDir`, which must hold none yet (a restore never overwrites a database). PGlite unpacks it
 * and starts on it once, so an archive it cannot open fails here rather than at the server's start.
 */
export async function restoreEmbeddedDatabase(dataDir: string, archive: Buffer): Promise<void> {
  const target = embeddedDir(dataDir);
  if (existsSync(target) && readdirSync(target).length > 0) throw new Error(`${target} already holds a database: restore into a data directory without one`);
  restrictToOwner(target);
  const lock = lockDirectory(target);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { vector } = await import('@electric-sql/pglite/vector');
    const db = new PGlite({ dataDir: target, loadDataDir: new Blob([new Uint8Array(archive)]), extensions: { vector } });
    await db.waitReady;
    await db.close();
    restrictFilesToOwner(target);
  } finally {
    lock.release();
  }
}
