import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Mutex, PGlite, types, type Results } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { lockDirectory, type DirectoryLock } from './directory-lock.js';

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

/** The one session of a PGlite database, shaped like a `pg` client. */
class PGliteClient extends EventEmitter {
  constructor(private readonly db: PGlite) {
    super();
  }

  query(text: string, callback: Callback<PgLikeResult>): void;
  query(text: string, params?: unknown[]): Promise<PgLikeResult>;
  query(text: string, paramsOrCallback?: unknown[] | Callback<PgLikeResult>, callback?: Callback<PgLikeResult>): Promise<PgLikeResult> | void {
    const params = typeof paramsOrCallback === 'function' ? undefined : paramsOrCallback;
    const done = typeof paramsOrCallback === 'function' ? paramsOrCallback : callback;
    const result = this.run(text, params);
    if (!done) return result;
    result.then((value) => done(null, value), (error: Error) => done(error));
  }

  private async run(text: string, params?: unknown[]): Promise<PgLikeResult> {
    // Without parameters TypeORM may send several statements at once (migrations do); only the
    // simple query protocol of exec() accepts that, and TypeORM wants the last statement's rows.
    const results: Results[] = params?.length ? [await this.db.query(text, params)] : await this.db.exec(text);
    const last = results[results.length - 1] ?? { rows: [], affectedRows: 0 };
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
  private readonly db: PGlite;
  private readonly client: PGliteClient;
  private readonly session = new Mutex();
  private readonly timeoutMs: number;
  private readonly lock: DirectoryLock;

  constructor(options: PGlitePoolOptions) {
    super();
    mkdirSync(dirname(options.dataDir), { recursive: true });
    // Two processes on one directory would each work on their own copy, and one copy is lost.
    this.lock = lockDirectory(options.dataDir);
    mkdirSync(options.dataDir, { recursive: true });
    this.db = new PGlite({
      dataDir: options.dataDir,
      extensions: { vector },
      serializers: { [types.BOOL]: serializeBoolean },
      // pg returns bigint as a string (it may not fit a number); TypeORM's entities expect that.
      parsers: { [types.INT8]: (value: string) => value },
    });
    this.client = new PGliteClient(this.db);
    this.timeoutMs = options.connectionTimeoutMillis ?? 0;
  }

  connect(callback: ConnectCallback): void {
    // Creating a new database takes seconds; only the wait for a busy session is bounded.
    this.db.waitReady.then(() => this.lendSession(callback), (error: Error) => callback(error));
  }

  private lendSession(callback: ConnectCallback): void {
    let timedOut = false;
    const timer = this.timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          callback(new Error('timeout exceeded when trying to connect (the embedded database session is busy)'));
        }, this.timeoutMs)
      : undefined;
    void this.session.acquire().then((release) => {
      if (timedOut) return release();
      clearTimeout(timer);
      callback(null, this.client, release);
    });
  }

  end(callback?: (error?: Error) => void): void {
    const closed = this.db.closed ? Promise.resolve() : this.db.close();
    closed.finally(() => this.lock.release()).then(() => callback?.(), (error: Error) => callback?.(error));
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
