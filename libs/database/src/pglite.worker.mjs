// Runs the embedded database (PGlite) in a worker thread of its own, so that its queries (which run
// on the thread that holds the database) never stall the server's event loop: a slow query delays
// the queries after it, not every request. The pool (pglite-pool.ts) sends one message per query.
// Plain JavaScript: a worker loads its file directly, without the TypeScript toolchain.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite/vector';

/** @type {{ dataDir: string, postgresqlConf: string[] }} */
const { dataDir, postgresqlConf } = workerData;

/**
 * TypeORM hands 1/0 (and sometimes "true"/"false") for boolean parameters, which `pg` lets
 * the server cast but PGlite's own boolean serializer rejects.
 */
function serializeBoolean(value) {
  if (value === true || value === 'true' || value === 1) return 't';
  if (value === false || value === 'false' || value === 0) return 'f';
  throw new Error(`Invalid input for boolean type: ${String(value)}`);
}

/** `pg`'s conversion of a parameter to the text it sends (its package exports `lib/*`, without types). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js');

/**
 * Dates as `pg` sends them to PostgreSQL. PGlite's own serializer writes `toISOString()`, which
 * PostgreSQL refuses for the year 0 (`0000-01-01T...`; it counts that year as 1 BC) and after 9999
 * (`+010000-01-01T...`), so a query that `pg` runs on PostgreSQL failed on the embedded database:
 * a FHIR search for `date=9999-12-31` (which ends at 10000-01-01) answered 500.
 */
function serializeDate(value) {
  if (typeof value === 'string') return value;
  if (value instanceof Date || typeof value === 'number') return prepareValue(new Date(value));
  throw new Error(`Invalid input for date type: ${String(value)}`);
}

/**
 * PGlite copies its instance's parsers into a new object for every result it parses
 * (`{ ...parsers }`), and after start-up they hold one per array type of the database, some 300
 * entries keyed by sparse type ids that V8 can only copy one by one: about 70 µs per query, a
 * third of an indexed one-row SELECT on the embedded database (measured with PGlite 0.4.6). So the
 * instance keeps only the parsers that override PGlite's defaults (its fallback for any type id);
 * array types are parsed here instead, as PGlite parses them (each element by the instance's
 * parser of its type), from the text PGlite then returns for those columns. Values come out as before.
 *
 * @returns {Promise<Map<number, (text: string, typeId?: number) => unknown>>}
 */
async function deferArrayParsers(db) {
  const all = db.parsers;
  // The array types PGlite's start-up gave parsers to, found as it finds them.
  const { rows } = await db.query(
    `SELECT b.oid AS element, b.typarray AS array FROM pg_catalog.pg_type a
     JOIN pg_catalog.pg_type b ON b.oid = a.typelem
     WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray`,
  );
  // An element type without a parser of its own (uuid) stays text, as in PGlite.
  const deferred = new Map(rows.map(({ element, array }) => [array, (text) => types.arrayParser(text, all[element], array)]));
  const defaults = types.parsers;
  db.parsers = Object.fromEntries(Object.entries(all).filter(([key, parser]) => !deferred.has(Number(key)) && parser !== defaults[key]));
  return deferred;
}

/** Parses the columns of deferred types in place; a column name that repeats holds the last such column's value, as PGlite's rows do. */
function applyDeferredParsers(result, deferred) {
  const columns = new Map();
  for (const { name, dataTypeID } of result.fields) {
    const parser = deferred.get(dataTypeID);
    columns.set(name, parser && { parser, typeId: dataTypeID });
  }
  for (const [name, column] of columns) {
    if (!column) continue;
    for (const row of result.rows) {
      const text = row[name];
      if (typeof text === 'string') row[name] = column.parser(text, column.typeId);
    }
  }
}

/** What a query's error carries besides its message (PostgreSQL's code, detail, position...), as a plain object a message can hold. */
function describeFailure(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields = {};
  for (const [key, value] of Object.entries(error)) if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  return { ...fields, name: error.name, message: error.message };
}

const db = new PGlite({
  dataDir,
  // The contrib extensions PostgreSQL packages ship, which migrations may create.
  extensions: { vector, pg_trgm, btree_gin },
  postgresqlconf: postgresqlConf,
  serializers: { [types.BOOL]: serializeBoolean, [types.DATE]: serializeDate, [types.TIMESTAMP]: serializeDate, [types.TIMESTAMPTZ]: serializeDate },
  // pg returns bigint as a string (it may not fit a number); TypeORM's entities expect that.
  parsers: { [types.INT8]: (value) => value },
});

async function run(text, params) {
  // Without parameters TypeORM may send several statements at once (migrations do); only the
  // simple query protocol of exec() accepts that, and TypeORM wants the last statement's rows.
  const results = params?.length ? [await db.query(text, params)] : await db.exec(text);
  const last = results[results.length - 1] ?? { rows: [], fields: [], affectedRows: 0 };
  applyDeferredParsers(last, deferredParsers);
  return { rows: last.rows, rowCount: last.affectedRows || last.rows.length };
}

/**
 * The data directory as a tar archive, for a backup while the server runs. The pool sends this
 * only while it holds the one session, so no statement is under way and every acknowledged write
 * is committed. The checkpoint writes every committed change from PostgreSQL's buffers to the
 * files the archive copies, so the copy does not rest on WAL still held in memory.
 */
async function dump() {
  await db.exec('CHECKPOINT');
  return (await db.dumpDataDir('none')).arrayBuffer();
}

let deferredParsers;
try {
  await db.waitReady;
  deferredParsers = await deferArrayParsers(db);
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: describeFailure(error) });
  process.exit(1);
}

parentPort.on('message', (message) => {
  if (message.close) {
    db.close().then(
      () => parentPort.postMessage({ closed: true }),
      (error) => parentPort.postMessage({ closed: true, error: describeFailure(error) }),
    );
    return;
  }
  if (message.dump) {
    dump().then(
      (archive) => parentPort.postMessage({ id: message.id, archive }, [archive]),
      (error) => parentPort.postMessage({ id: message.id, error: describeFailure(error) }),
    );
    return;
  }
  run(message.text, message.params).then(
    (result) => parentPort.postMessage({ id: message.id, result }),
    (error) => parentPort.postMessage({ id: message.id, error: describeFailure(error) }),
  );
});
