import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Set to a PostgreSQL server's URL to run the tests there instead of on the embedded database. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
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
