import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Mutex, PGlite, types, type Results } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite/vector';
import { lockDirectory, type DirectoryLock } from './directory-lock.js';

/**
 * PGlite's default `shared_buffers` (128 MB) is most of its resident memory; our data is small.
 * Measured with PGlite 0.4.6 on a restart (RSS of PGlite alone, after 200 inserts): 316 MB by
 * default, 187 MB with 16 MB, 178 MB with 8 MB; the whole server after a restart, idle: 207 MB
 * with 16 MB, 194 MB with 8 MB. `initialMemory` cannot go below its 128 MB default (PGlite's
 * module refuses less), so it stays unset.
 */
const POSTGRESQL_CONF = ['shared_buffers=8MB'];

/**
 * V8 compiles PGlite's WebAssembly twice: quickly (Liftoff), then optimized (TurboFan) in the
 * background, keeping both. Liftoff alone, measured with PGlite 0.4.6 on a restart: 134 MB
 * instead of 174 MB resident, start-up 3.4 s instead of 8.8 s, and an indexed SELECT no slower
 * (PGlite's time goes to its protocol and file system layers, not to compiled query code). Only
 * PGlite runs WebAssembly in this server; the flag must be set before its module is compiled.
 */
const WASM_FLAGS = '--liftoff-only';
let wasmFlagsSet = false;

function useLeanWasmCompilation(): void {
  if (wasmFlagsSet) return;
  setFlagsFromString(WASM_FLAGS);
  wasmFlagsSet = true;
}

/**
 * Creating a database runs initdb and a second, throw-away PGlite next to the one that keeps it:
 * about 800 MB at the peak, of which some 300 MB stay with the process after it ends. Done in a
 * child process instead, the server's own peak is that of any later start, and the child's
 * memory goes back to the system when it exits.
 */
const CREATE_IN_CHILD = `
const [pglite, vectorExtension, dataDir] = process.argv.slice(1);
const { PGlite } = require(pglite);
const { vector } = require(vectorExtension);
const db = new PGlite({ dataDir, extensions: { vector } });
db.waitReady.then(() => db.close()).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

function createDatabaseIfMissing(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return Promise.resolve();
  const require = createRequire(import.meta.url);
  const modules = [require.resolve('@electric-sql/pglite'), require.resolve('@electric-sql/pglite/vector')];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [WASM_FLAGS, '-e', CREATE_IN_CHILD, ...modules, dataDir], (error, _stdout, stderr) => {
      if (error) reject(new Error(`Creating the embedded database in ${dataDir} failed: ${stderr || error.message}`));
      else resolve();
    });
  });
}

type Callback<T> = (error: Error | null, value?: T) => void;
type ConnectCallback = (error: Error | null, client?: PGliteClient, release?: () => void) => void;

/** The part of a `pg` query result that TypeORM reads. */
interface PgLikeResult {
  rows: unknown[];
  rowCount: number;
  command: string;
}

/**
 * TypeORM hands 1/0 (and sometimes "true"/"false") for boolean parameters, which `pg` lets
 * the server cast but PGlite's own boolean serializer rejects.
 */
function serializeBoolean(value: unknown): string {
  if (value === true || value === 'true' || value === 1) return 't';
  if (value === false || value === 'false' || value === 0) return 'f';
  throw new Error(`Invalid input for boolean type: ${String(value)}`);
}

/** `pg`'s conversion of a parameter to the text it sends (its package exports `lib/*`, without types). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(value: unknown): unknown };

/**
 * Dates as `pg` sends them to PostgreSQL. PGlite's own serializer writes `toISOString()`, which
 * PostgreSQL refuses for the year 0 (`0000-01-01T...`; it counts that year as 1 BC) and after 9999
 * (`+010000-01-01T...`), so a query that `pg` runs on PostgreSQL failed on the embedded database:
 * a FHIR search for `date=9999-12-31` (which ends at 10000-01-01) answered 500.
 */
function serializeDate(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date || typeof value === 'number') return prepareValue(new Date(value)) as string;
  throw new Error(`Invalid input for date type: ${String(value)}`);
}

type Parser = (text: string, typeId?: number) => unknown;

/**
 * PGlite copies its instance's parsers into a new object for every result it parses
 * (`{ ...parsers }`), and after start-up they hold one per array type of the database, some 300
 * entries keyed by sparse type ids that V8 can only copy one by one: about 70 µs per query, a
 * third of an indexed one-row SELECT on the embedded database (measured with PGlite 0.4.6). So the
 * instance keeps only the parsers that override PGlite's defaults (its fallback for any type id);
 * array types are parsed here instead, as PGlite parses them (each element by the instance's
 * parser of its type), from the text PGlite then returns for those columns. Values come out as before.
 */
async function deferArrayParsers(db: PGlite): Promise<Map<number, Parser>> {
  const all = db.parsers;
  // The array types PGlite's start-up gave parsers to, found as it finds them.
  const { rows } = await db.query<{ element: number; array: number }>(
    `SELECT b.oid AS element, b.typarray AS array FROM pg_catalog.pg_type a
     JOIN pg_catalog.pg_type b ON b.oid = a.typelem
     WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray`,
  );
  // An element type without a parser of its own (uuid) stays text, as in PGlite.
  const deferred = new Map<number, Parser>(rows.map(({ element, array }) => [array, (text: string) => types.arrayParser(text, all[element] as Parser, array)]));
  const defaults = types.parsers as Record<string, Parser | undefined>;
  db.parsers = Object.fromEntries(Object.entries(all).filter(([key, parser]) => !deferred.has(Number(key)) && parser !== defaults[key]));
  return deferred;
}

/** Parses the columns of deferred types in place; a column name that repeats holds the last such column's value, as PGlite's rows do. */
function applyDeferredParsers(result: Results, deferred: Map<number, Parser>): void {
  const columns = new Map<string, { parser: Parser; typeId: number } | undefined>();
  for (const { name, dataTypeID } of result.fields) {
    const parser = deferred.get(dataTypeID);
    columns.set(name, parser && { parser, typeId: dataTypeID });
  }
  for (const [name, column] of columns) {
    if (!column) continue;
    for (const row of result.rows as Record<string, unknown>[]) {
      const text = row[name];
      if (typeof text === 'string') row[name] = column.parser(text, column.typeId);
    }
  }
}

/** The one session of a PGlite database, shaped like a `pg` client. */
class PGliteClient extends EventEmitter {
  constructor(
    private readonly db: PGlite,
    private readonly deferredParsers: Map<number, Parser>,
  ) {
    super();
  }

  query(text: string, callback: Callback<PgLikeResult>): void;
  query(text: string, params?: unknown[]): Promise<PgLikeResult>;
  query(text: string, paramsOrCallback?: unknown[] | Callback<PgLikeResult>, callback?: Callback<PgLikeResult>): Promise<PgLikeResult> | void {
    const params = typeof paramsOrCallback === 'function' ? undefined : paramsOrCallback;
    const done = typeof paramsOrCallback === 'function' ? paramsOrCallback : callback;
    const result = this.run(text, params);
    if (!done) return result;
    result.then(
      (value) => done(null, value),
      (error: Error) => done(error),
    );
  }

  private async run(text: string, params?: unknown[]): Promise<PgLikeResult> {
    // Without parameters TypeORM may send several statements at once (migrations do); only the
    // simple query protocol of exec() accepts that, and TypeORM wants the last statement's rows.
    const results: Results[] = params?.length ? [await this.db.query(text, params)] : await this.db.exec(text);
    const last = results[results.length - 1] ?? { rows: [], fields: [], affectedRows: 0 };
    applyDeferredParsers(last, this.deferredParsers);
    return {
      rows: last.rows,
      rowCount: last.affectedRows || last.rows.length,
      // pg reports the statement's verb; TypeORM shapes UPDATE and DELETE results by it.
      command: text.trimStart().split(/\s/, 1)[0]!.toUpperCase(),
    };
  }
}

export interface PGlitePoolOptions {
  /** Where the database files live; created when missing. */
  dataDir: string;
  /** How long `connect()` waits for the session before failing, like pg's `connectionTimeoutMillis`; 0 waits forever. */
  connectionTimeoutMillis?: number;
}

/**
 * A `pg.Pool` look-alike of size one over an embedded PGlite database, for TypeORM's `driver` option.
 *
 * PGlite has a single session, so the pool lends it to one TypeORM query runner at a time:
 * a transaction then never interleaves with another runner's statements. Each pool owns its
 * PGlite instance, so two data sources (two apps in one test process) never share one.
 */
export class PGlitePool extends EventEmitter {
  /** The open database and its session, once created (if need be) and started. */
  private readonly opened: Promise<{ db: PGlite; client: PGliteClient }>;
  private readonly session = new Mutex();
  private readonly timeoutMs: number;
  private readonly lock: DirectoryLock;
  /** Query runners waiting for the session, as `pg.Pool` counts its own (`waitingCount`). */
  private waiting = 0;

  constructor(options: PGlitePoolOptions) {
    super();
    restrictToOwner(options.dataDir);
    // Two processes on one directory would each work on their own copy, and one copy is lost.
    this.lock = lockDirectory(options.dataDir);
    useLeanWasmCompilation();
    this.opened = createDatabaseIfMissing(options.dataDir).then(async () => {
      const db = new PGlite({
        dataDir: options.dataDir,
        // The contrib extensions PostgreSQL packages ship, which migrations may create.
        extensions: { vector, pg_trgm, btree_gin },
        postgresqlconf: POSTGRESQL_CONF,
        serializers: { [types.BOOL]: serializeBoolean, [types.DATE]: serializeDate, [types.TIMESTAMP]: serializeDate, [types.TIMESTAMPTZ]: serializeDate },
        // pg returns bigint as a string (it may not fit a number); TypeORM's entities expect that.
        parsers: { [types.INT8]: (value: string) => value },
      });
      await db.waitReady;
      return { db, client: new PGliteClient(db, await deferArrayParsers(db)) };
    });
    // A failure reaches whoever connects; it must not also surface as an unhandled rejection.
    this.opened.catch(() => undefined);
    this.timeoutMs = options.connectionTimeoutMillis ?? 0;
    // PGlite writes with the process umask (usually 0644): its files are narrowed once it has made them.
    this.opened.then(
      () => restrictFilesToOwner(options.dataDir),
      () => undefined,
    );
  }

  connect(callback: ConnectCallback): void {
    // Creating a new database takes seconds; only the wait for a busy session is bounded.
    this.opened.then(
      ({ client }) => this.lendSession(client, callback),
      (error: Error) => callback(error),
    );
  }

  private lendSession(client: PGliteClient, callback: ConnectCallback): void {
    let timedOut = false;
    const timer =
      this.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            callback(new Error('timeout exceeded when trying to connect (the embedded database session is busy)'));
          }, this.timeoutMs)
        : undefined;
    this.waiting++;
    void this.session.acquire().then((release) => {
      this.waiting--;
      if (timedOut) return release();
      clearTimeout(timer);
      callback(null, client, release);
    });
  }

  /** The connection counts `pg.Pool` keeps, for the pool gauges: one session, lent or idle. */
  get totalCount(): number {
    return 1;
  }

  get idleCount(): number {
    return this.session.isLocked() ? 0 : 1;
  }

  get waitingCount(): number {
    return this.waiting;
  }

  end(callback?: (error?: Error) => void): void {
    const closed = this.opened.then(async ({ db }) => {
      if (!db.closed) await db.close();
      restrictFilesToOwner(db.dataDir!);
    });
    closed
      .finally(() => this.lock.release())
      .then(
        () => callback?.(),
        (error: Error) => callback?.(error),
      );
  }
}

/**
 * The database holds people's data: its directory is readable by the server's user alone (0700;
 * PostgreSQL itself refuses a data directory wider than 0750), and so are the parents it creates
 * (the server's DATA_DIR on a first start). A parent that exists is not the database's to change:
 * it may be a shared directory such as /tmp, which this once narrowed to 0700.
 */
function restrictToOwner(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
}

/** Directories 0700 and files 0600 under `dir`. */
function restrictFilesToOwner(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      chmodSync(path, 0o700);
      restrictFilesToOwner(path);
    } else if (entry.isFile()) chmodSync(path, 0o600);
  }
}

/** TypeORM's `driver` option for the postgres type: it builds the pool itself, with options of its own that PGlite has no use for. */
export function pgliteDriver(options: PGlitePoolOptions): { Pool: new () => PGlitePool } {
  return {
    Pool: class extends PGlitePool {
      constructor() {
        super(options);
      }
    },
  };
}
