import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
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
 * V8's flags belong to the process, so the worker thread that holds PGlite compiles with it too
 * (setting it again in the worker changed nothing measurable).
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

/** A failure as the worker reports it: the error's message and its fields (PostgreSQL's `code`, `detail`, ...). */
interface ReportedFailure {
  name?: string;
  message: string;
  [field: string]: unknown;
}

type WorkerMessage =
  | { ready: true }
  | { ready: false; error: ReportedFailure }
  | { id: number; result: { rows: unknown[]; rowCount: number } }
  | { id: number; archive: ArrayBuffer }
  | { id: number; error: ReportedFailure }
  | { closed: true; error?: ReportedFailure };

const WORKER_URL = new URL('./pglite.worker.mjs', import.meta.url);

/** The error a reported failure stands for, with its fields, as the `pg` driver's errors carry them. */
function toError(failure: ReportedFailure): Error {
  const { message, name, ...fields } = failure;
  return Object.assign(new Error(message), fields, name && name !== 'Error' ? { name } : {});
}

/**
 * The embedded database in a worker thread (`pglite.worker.mjs`): PGlite runs its queries on the
 * thread that holds it, so here a slow query delays only the queries queued behind it, while the
 * event loop goes on serving every other request. One message out and one back per query; the
 * values cross by structured clone (rows of strings, numbers, dates, byte arrays, JSON values).
 */
class EmbeddedDatabase {
  private readonly worker: Worker;
  /** What each message sent waits for: a query's rows, or a dump's archive. */
  private readonly pending = new Map<number, { resolve: (answer: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private failure?: Error;
  private closing?: { resolve: () => void; reject: (error: Error) => void };
  readonly ready: Promise<void>;

  constructor(dataDir: string) {
    this.worker = new Worker(WORKER_URL, { workerData: { dataDir, postgresqlConf: POSTGRESQL_CONF } });
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (message: WorkerMessage) => {
        if ('ready' in message)
          return message.ready ? resolve() : reject(new Error(`Opening the embedded database in ${dataDir} failed: ${message.error.message}`));
        if ('closed' in message) return message.error ? this.closing?.reject(toError(message.error)) : this.closing?.resolve();
        const query = this.pending.get(message.id);
        this.pending.delete(message.id);
        if ('result' in message) query?.resolve(message.result);
        else if ('archive' in message) query?.resolve(Buffer.from(message.archive));
        else query?.reject(toError(message.error));
      });
      // A worker that dies takes its database with it: every query waiting and every later one fails, saying why.
      this.worker.on('error', (error) => this.fail(new Error(`The embedded database stopped: ${error.message}`), reject));
      this.worker.on('exit', (code) => this.fail(new Error(`The embedded database stopped (its thread exited with code ${code})`), reject));
    });
  }

  query(text: string, params: unknown[] | undefined): Promise<{ rows: unknown[]; rowCount: number }> {
    return this.send({ text, params });
  }

  /** The data directory as a tar archive (see `dump` in the worker). */
  dump(): Promise<Buffer> {
    return this.send({ dump: true });
  }

  private send<T>(message: object): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (answer: unknown) => void, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  /** Closes the database (PostgreSQL's shutdown checkpoint), then ends the thread. */
  async close(): Promise<void> {
    if (this.failure) return;
    await new Promise<void>((resolve, reject) => {
      this.closing = { resolve, reject };
      this.worker.postMessage({ close: true });
    });
    await this.worker.terminate();
  }

  private fail(error: Error, rejectReady: (error: Error) => void): void {
    if (this.failure) return;
    this.failure = error;
    rejectReady(error);
    for (const query of this.pending.values()) query.reject(error);
    this.pending.clear();
    this.closing?.resolve();
  }
}

/** Lends the one session to one holder at a time, in the order they asked. */
class SessionLock {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  get isHeld(): boolean {
    return this.held;
  }

  /** Resolves with the release once the session is the caller's; a release hands it straight to the next in line. */
  async acquire(): Promise<() => void> {
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.held = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held = false;
    };
  }
}

/** The one session of the embedded database, shaped like a `pg` client. */
class PGliteClient extends EventEmitter {
  constructor(private readonly db: EmbeddedDatabase) {
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
    const { rows, rowCount } = await this.db.query(text, params);
    // pg reports the statement's verb; TypeORM shapes UPDATE and DELETE results by it.
    return { rows, rowCount, command: text.trimStart().split(/\s/, 1)[0]!.toUpperCase() };
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
  private readonly opened: Promise<{ db: EmbeddedDatabase; client: PGliteClient }>;
  private readonly session = new SessionLock();
  private readonly timeoutMs: number;
  private readonly lock: DirectoryLock;
  private readonly dataDir: string;
  /** Query runners waiting for the session, as `pg.Pool` counts its own (`waitingCount`). */
  private waiting = 0;

  constructor(options: PGlitePoolOptions) {
    super();
    this.dataDir = options.dataDir;
    restrictToOwner(options.dataDir);
    // Two processes on one directory would each work on their own copy, and one copy is lost.
    this.lock = lockDirectory(options.dataDir);
    useLeanWasmCompilation();
    this.opened = createDatabaseIfMissing(options.dataDir).then(async () => {
      const db = new EmbeddedDatabase(options.dataDir);
      await db.ready;
      return { db, client: new PGliteClient(db) };
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

  /**
   * A copy of the database as a tar archive, taken while no query runs: it waits for the session
   * like any query runner (so every write acknowledged before the call is in it, and no transaction
   * is half in it), dumps, then runs `alongside` still holding the session, so that what it copies
   * next to the database (the files the rows point to) is of the same moment.
   */
  async snapshot(alongside: () => Promise<void>): Promise<Buffer> {
    const { db } = await this.opened;
    const release = await this.session.acquire();
    try {
      const archive = await db.dump();
      await alongside();
      return archive;
    } finally {
      release();
    }
  }

  /** The connection counts `pg.Pool` keeps, for the pool gauges: one session, lent or idle. */
  get totalCount(): number {
    return 1;
  }

  get idleCount(): number {
    return this.session.isHeld ? 0 : 1;
  }

  get waitingCount(): number {
    return this.waiting;
  }

  end(callback?: (error?: Error) => void): void {
    const closed = this.opened.then(async ({ db }) => {
      await db.close();
      restrictFilesToOwner(this.dataDir);
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
export function restrictToOwner(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
}

/** Directories 0700 and files 0600 under `dir`. */
export function restrictFilesToOwner(dir: string): void {
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
