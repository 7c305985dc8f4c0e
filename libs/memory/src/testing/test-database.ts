import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { pgliteDriver } from '@app/database';
import { MemoryEntity } from '../memory.entity.js';
import { MEMORY_MIGRATIONS } from '../migrations/memory-migrations.js';

export interface MigratedDatabase {
  dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * An empty database with the memory migrations run: a new database on the PostgreSQL server
 * `serverUrl` names, else an embedded one in a temporary directory.
 */
export async function migratedDatabase(serverUrl = process.env.TEST_DATABASE_URL): Promise<MigratedDatabase> {
  const migrations = MEMORY_MIGRATIONS;
  if (serverUrl) {
    const name = `mirobody_memory_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const dataSource = await new DataSource({ type: 'postgres', url: url.href, entities: [MemoryEntity], migrations, migrationsRun: true }).initialize();
    return {
      dataSource,
      close: async () => {
        await dataSource.destroy();
        const cleanup = new pg.Client({ connectionString: serverUrl });
        await cleanup.connect();
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await cleanup.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mirobody-memory-'));
  const dataSource = await new DataSource({
    type: 'postgres',
    driver: pgliteDriver({ dataDir: dir, connectionTimeoutMillis: 30_000 }),
    entities: [MemoryEntity],
    migrations,
    migrationsRun: true,
  }).initialize();
  return {
    dataSource,
    close: async () => {
      await dataSource.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
