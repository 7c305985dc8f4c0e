import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { NeededService } from './services.js';

/** Set to a PostgreSQL server's URL to run the tests there instead of on the embedded database. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/**
 * Where tests that share one database between two apps (instances behind one load balancer) create
 * it: TEST_DATABASE_URL's server, else the local one, since the embedded database serves one process.
 */
export const SHARED_DATABASE_SERVER_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The PostgreSQL server at `url`, for `describeNeeding`: it answers when a connection is accepted within a second. */
export const postgresService = (url: string): NeededService => ({
  name: 'PostgreSQL',
  url,
  answers: (serverUrl) => onServer(serverUrl, async () => true, { connectionTimeoutMillis: 1000 }).catch(() => false),
  urlVariable: 'TEST_DATABASE_URL',
  requireVariable: 'REQUIRE_POSTGRES',
});

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>, options: pg.ClientConfig = {}): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, ...options });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of its own for one app, on the server `TEST_DATABASE_URL` names (through whose
 * database it is created), so that no test and no concurrent run sees another's rows.
 */
export async function createTestDatabase(serverUrl: string): Promise<TestDatabase> {
  const name = `mirobody_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: () => onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
