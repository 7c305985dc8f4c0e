import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { EnableVector1795996800000 } from './migrations/1795996800000-enable-vector.js';
import { pgliteDriver } from './pglite-pool.js';

const root = mkdtempSync(join(tmpdir(), 'mirobody-pglite-'));
// A shared parent, as /tmp is: the database narrows its own directory, never this one.
chmodSync(root, 0o755);

function embedded(name: string): DataSource {
  return new DataSource({
    type: 'postgres',
    driver: pgliteDriver({ dataDir: join(root, name), connectionTimeoutMillis: 5000 }),
    migrations: [EnableVector1795996800000],
    migrationsRun: true,
  });
}

let db: DataSource;
/** Creating a database (initdb) takes PGlite several seconds, more on a busy machine. */
const CREATING = 120_000;

beforeAll(async () => {
  db = await embedded('main').initialize();
  await db.query('CREATE TABLE note (id serial PRIMARY KEY, text text NOT NULL, done boolean NOT NULL DEFAULT false, size bigint)');
}, CREATING);

afterAll(async () => {
  if (db?.isInitialized) await db.destroy();
  rmSync(root, { recursive: true, force: true });
});

describe('the embedded database behind TypeORM', () => {
  it('is created (in a child process) and runs with the lean memory settings', async () => {
    expect(await db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '8MB' }]);
    expect(existsSync(join(root, 'main', 'PG_VERSION'))).toBe(true);
  });

  it('runs the initial migration, which enables pgvector', async () => {
    expect(await db.query(`SELECT extname FROM pg_extension WHERE extname = 'vector'`)).toEqual([{ extname: 'vector' }]);
    const [{ distance }] = await db.query(`SELECT '[1,2]'::vector <-> '[4,6]'::vector AS distance`);
    expect(distance).toBe(5);
  });

  it('takes TypeORM boolean parameters (1/0) and returns bigint as a string, as pg does', async () => {
    await db.query('INSERT INTO note (text, done, size) VALUES ($1, $2, $3)', ['a', 1, '9007199254740993']);
    expect(await db.query('SELECT done, size FROM note WHERE text = $1', ['a'])).toEqual([{ done: true, size: '9007199254740993' }]);
  });

  it.each([
    ['the year 0 (1 BC)', new Date('0000-01-01T00:00:00Z'), '0001-01-01 00:00:00.000 BC'],
    ['the year 10000', new Date('+010000-01-01T00:00:00Z'), '10000-01-01 00:00:00.000 AD'],
    ['an ordinary instant', new Date('2026-01-05T08:00:00.123Z'), '2026-01-05 08:00:00.123 AD'],
  ])('takes a Date parameter of %s as timestamptz and date, as pg sends it', async (_name, at, utc) => {
    const [row] = await db.query(
      `SELECT to_char($1::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS AD') AS utc, to_char($2::date, 'YYYY-MM-DD AD') AS day`,
      [at, at],
    );
    expect(row).toEqual({ utc, day: `${utc.split(' ')[0]} ${utc.slice(-2)}` });
  });

  it('parses array columns as PGlite does, element by element, bigint ones as strings', async () => {
    const at = new Date('2026-01-05T08:00:00.123Z');
    const [row] = await db.query(
      `SELECT ARRAY['a', 'b "c"', NULL]::text[] AS texts, ARRAY[true, false] AS flags, ARRAY[$1::timestamptz] AS instants,
              ARRAY['{"a": 1}'::jsonb] AS documents, ARRAY[9007199254740993]::int8[] AS sizes, ARRAY[[1, 2], [3, 4]] AS grid,
              NULL::int[] AS missing, '[1,2]'::vector AS embedding`,
      [at],
    );
    expect(row).toEqual({
      texts: ['a', 'b "c"', null],
      flags: [true, false],
      instants: [at],
      documents: [{ a: 1 }],
      sizes: ['9007199254740993'],
      grid: [
        [1, 2],
        [3, 4],
      ],
      missing: null,
      embedding: '[1,2]',
    });
    // A name given twice holds the last column's value, as PGlite's rows do.
    expect(await db.query(`SELECT ARRAY[1] AS value, 'text' AS value`)).toEqual([{ value: 'text' }]);
    expect(await db.query(`SELECT 'text' AS value, ARRAY[1] AS value`)).toEqual([{ value: [1] }]);
  });

  it('reports the rows an UPDATE affected', async () => {
    await db.query(`INSERT INTO note (text) VALUES ('b'), ('b')`);
    const result = await db.createQueryBuilder().update('note').set({ done: true }).where('text = :text', { text: 'b' }).execute();
    expect(result.affected).toBe(2);
  });

  it('lends its one session to one transaction at a time, so a rollback undoes only its own rows', async () => {
    const first = db.createQueryRunner();
    const second = db.createQueryRunner();
    await first.startTransaction();
    await first.query(`INSERT INTO note (text) VALUES ('rolled back')`);
    // The second runner waits for the session instead of writing inside the first one's transaction.
    const secondWrite = (async () => {
      await second.startTransaction();
      await second.query(`INSERT INTO note (text) VALUES ('kept')`);
      await second.commitTransaction();
    })();
    await first.rollbackTransaction();
    await first.release();
    await secondWrite;
    await second.release();
    const texts = (await db.query(`SELECT text FROM note WHERE text IN ('rolled back', 'kept')`)).map((row: { text: string }) => row.text);
    expect(texts).toEqual(['kept']);
  });

  it("runs queries off the event loop: a slow one does not stall the process's other work", async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    const started = performance.now();
    // A query that keeps the database busy for about a second, as a heavy search on a large table would.
    await db.query(`SELECT count(*) FROM generate_series(1, 3000000) AS n WHERE md5(n::text) LIKE '0%'`);
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    delay.disable();
    expect(elapsed).toBeGreaterThan(300);
    // The timer kept firing while the query ran (on the event loop it would have fired once, after).
    expect(ticks).toBeGreaterThan(elapsed / 20 / 3);
    expect(delay.max / 1e6).toBeLessThan(200);
  });

  it('reports a failed query with the fields pg gives (code, detail) and goes on serving', async () => {
    await db.query(`INSERT INTO note (text) VALUES ('unique probe')`);
    await db.query('CREATE UNIQUE INDEX note_text_probe ON note (text) WHERE text = $$unique probe$$');
    const failure = await db.query(`INSERT INTO note (text) VALUES ('unique probe')`).then(
      () => undefined,
      (error: { driverError?: { code?: string; detail?: string; message?: string } }) => error.driverError,
    );
    expect(failure).toMatchObject({ code: '23505', detail: expect.stringContaining('unique probe') });
    expect(failure?.message).toContain('note_text_probe');
    await db.query('DROP INDEX note_text_probe');
    await db.query(`DELETE FROM note WHERE text = 'unique probe'`);
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it(
    'keeps two data sources in one process apart',
    async () => {
      const other = await embedded('other').initialize();
      try {
        expect(await other.query(`SELECT to_regclass('note') AS note`)).toEqual([{ note: null }]);
      } finally {
        await other.destroy();
      }
      expect(await db.query('SELECT count(*)::int AS count FROM note')).toEqual([{ count: 4 }]);
    },
    CREATING,
  );

  it('keeps the data on disk across a restart', async () => {
    await db.destroy();
    db = await embedded('main').initialize();
    expect(await db.query('SELECT count(*)::int AS count FROM note')).toEqual([{ count: 4 }]);
  });
});

describe('the embedded database on disk (finding 12)', () => {
  it('is readable by the server’s user alone: directories 0700, files 0600', async () => {
    const mode = (path: string) => statSync(path).mode & 0o777;
    // The directory holding it existed before (see the top of this file): its mode is left as it was.
    expect(mode(root)).toBe(0o755);
    const dataDir = join(root, 'main');
    expect(mode(dataDir)).toBe(0o700);
    const wider = readdirSync(dataDir, { recursive: true, withFileTypes: true })
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((path) => mode(path) !== (statSync(path).isDirectory() ? 0o700 : 0o600));
    expect(wider).toEqual([]);
  });
});
