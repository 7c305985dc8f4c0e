import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, isUUID, IsString, Max, MaxLength, Min } from 'class-validator';
import { Omittable } from './rest/validation.js';
import { InvalidInputError } from './errors.js';
import { readIsoDateTime } from './iso-date-time.js';

/** One page of a list; `nextCursor` fetches the next one and is null on the last. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** `?limit=&cursor=` of every paginated list; a request without `limit` gets `DEFAULT_PAGE_SIZE` items at most. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Items per page' })
  @Omittable()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page' })
  @Omittable()
  @IsString()
  @MaxLength(1000)
  cursor?: string;
}

/** Reads one value of a keyset as the server wrote it into a cursor, or answers `undefined` for anything else. */
export type KeyReader<T> = (value: unknown) => T | undefined;

/** A list's keyset: one reader per value, in the order of the list's ORDER BY. */
export type Keyset = readonly KeyReader<unknown>[];

/** The values a keyset's readers read. */
export type KeyValues<K extends Keyset> = { -readonly [I in keyof K]: K[I] extends KeyReader<infer T> ? T : never };

const INT8_MAX = 2n ** 63n - 1n;

/**
 * The readers keysets are described with. Each accepts only what the database can compare with
 * the column it stands for: anything else, cast in SQL, would be a database error (a 500) rather
 * than the caller's mistake.
 */
export const cursorKey = {
  /**
   * A timestamp as `instantKeySql` or `toISOString()` writes it, or any ISO 8601 date-time with a
   * zone that is a real instant (not 2026-02-30, not year 0, which PostgreSQL refuses). Kept as the
   * text itself, so that a keyset written to the microsecond is compared to the microsecond.
   */
  instant: (value: unknown): string | undefined => {
    if (typeof value !== 'string') return undefined;
    const read = readIsoDateTime(value, ['moment']);
    return 'start' in read && read.start.getUTCFullYear() >= 1 ? value : undefined;
  },
  uuid: (value: unknown): string | undefined => (typeof value === 'string' && isUUID(value, 'all') ? value : undefined),
  /** A `bigint` column's value as the driver hands it out: decimal digits, within PostgreSQL's int8. */
  int8: (value: unknown): string | undefined => (typeof value === 'string' && /^\d{1,19}$/.test(value) && BigInt(value) <= INT8_MAX ? value : undefined),
  /** Text the database can compare: without U+0000 or half a surrogate pair. */
  text: (value: unknown): string | undefined => (typeof value === 'string' && !value.includes('\u0000') && value.isWellFormed() ? value : undefined),
  /** One of `choices`, e.g. the order a cursor was issued for. */
  oneOf:
    <const T extends string>(...choices: T[]): KeyReader<T> =>
    (value) =>
      choices.find((choice) => choice === value),
};

/**
 * SQL for a `timestamptz` column's value as the ISO text `cursorKey.instant` reads, to the
 * microsecond the database keeps. A list ordered by such a column takes its keyset from this, not
 * from the `Date` the driver hands out: a `Date` holds milliseconds only, and a cursor cut to them
 * would skip the rows stored later in the same millisecond.
 */
export const instantKeySql = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** How a list names its cursor parameter (`cursor`, FHIR's `_cursor`) and tells how to get a valid one. */
export interface CursorParameter {
  name?: string;
  advice?: string;
}

/**
 * The keyset of the last item on a page (e.g. `[createdAt, id]`), opaque to clients. It is not
 * signed: a forged cursor can only move where the caller's own, already-scoped query starts.
 * Values `keyset` would not read back are the server's own mistake, so they throw here, not in the
 * next request.
 */
export function encodeCursor<K extends Keyset>(keyset: K, values: KeyValues<K>): string {
  if (values.length !== keyset.length || keyset.some((read, index) => read(values[index]) === undefined)) {
    throw new Error(`A cursor would hold a keyset its list cannot read back: ${JSON.stringify(values)}`);
  }
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/**
 * The values of a cursor `encodeCursor` wrote with the same `keyset`. Anything else (not base64 of
 * JSON, not an array, another length, a value its reader refuses) is the caller's mistake: a 400
 * naming the parameter, never a value the database would choke on.
 */
export function decodeCursor<K extends Keyset>(cursor: string, keyset: K, parameter: CursorParameter = {}): KeyValues<K> {
  const values = parsed(cursor);
  if (Array.isArray(values) && values.length === keyset.length) {
    const read = keyset.map((reader, index) => reader(values[index]));
    if (!read.includes(undefined)) return read as KeyValues<K>;
  }
  const { name = 'cursor', advice = 'pass the nextCursor of the previous page' } = parameter;
  throw new InvalidInputError(`Invalid ${name}: ${advice}`, { [name]: 'not a cursor this server issued' });
}

function parsed(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Builds a page from `limit + 1` rows fetched in keyset order: the extra row only says there is
 * more. `keyOf` gives the keyset of a row (the values the next query starts after), as `keyset`
 * reads them back; `index` is the row's, for keys fetched beside the rows (TypeORM's raw results).
 */
export function toPage<Row, K extends Keyset, Item = Row>(
  rows: Row[],
  limit: number,
  keyset: K,
  keyOf: (row: Row, index: number) => KeyValues<K>,
  map: (row: Row) => Item = (row) => row as unknown as Item,
): Page<Item> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return { items: kept.map(map), nextCursor: more ? encodeCursor(keyset, keyOf(kept[kept.length - 1]!, kept.length - 1)) : null };
}
