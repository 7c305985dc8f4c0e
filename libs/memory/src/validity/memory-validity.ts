import { readIsoDateTime } from '@app/common';

/**
 * Which of a user's memories an answer holds: those `current` (not superseded: the default),
 * those valid at an instant (`{ asOf }`: valid_from <= asOf < valid_to), or every version
 * (`history`). Deleted memories are never in an answer.
 */
export type MemoryValidity = 'current' | 'history' | { asOf: Date };

/** The validity of an answer from the two optional arguments that choose it; both at once is a problem named by the caller. */
export function validityOf(asOf: Date | undefined, includeHistory: boolean | undefined): MemoryValidity | { problem: string } {
  if (asOf && includeHistory) return { problem: 'as of an instant answers what was valid then; history answers every version: ask for one of them' };
  return asOf ? { asOf } : includeHistory ? 'history' : 'current';
}

/** A memory's interval, as its row holds it. */
interface Interval {
  valid_from: Date;
  valid_to: Date | null;
}

/** Whether a memory belongs in an answer of this validity (deleted ones never do: the caller leaves them out). */
export function holdsUnder(memory: Interval, validity: MemoryValidity): boolean {
  if (validity === 'history') return true;
  if (validity === 'current') return memory.valid_to === null;
  const at = validity.asOf.getTime();
  return memory.valid_from.getTime() <= at && (memory.valid_to === null || memory.valid_to.getTime() > at);
}

/**
 * The SQL condition `holdsUnder` states, on the memories of `alias`; an instant is added to
 * `params` and referred to by its position.
 */
export function validitySql(alias: string, validity: MemoryValidity, params: unknown[]): string {
  if (validity === 'history') return 'TRUE';
  if (validity === 'current') return `${alias}.valid_to IS NULL`;
  params.push(validity.asOf);
  const at = `$${params.length}::timestamptz`;
  return `${alias}.valid_from <= ${at} AND (${alias}.valid_to IS NULL OR ${alias}.valid_to > ${at})`;
}

/** The instants PostgreSQL and an ISO string both hold: year 0 and year 10000 would be a database error, not the caller's. */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * A `valid_from` or an `as_of`: an ISO 8601 year, month or day, standing for its first instant
 * (00:00 UTC), or a date-time with its time zone; anything else is a sentence saying why not.
 */
export function readMemoryTime(sent: string): Date | { problem: string } {
  const read = readIsoDateTime(sent, ['year', 'month', 'day', 'moment']);
  if ('problem' in read) return { problem: read.problem.replace('an ISO 8601 date or date-time', 'an ISO 8601 date (its start, UTC) or date-time') };
  const at = read.start.getTime();
  if (at < FIRST_INSTANT || at > LAST_INSTANT) return { problem: 'must be between the years 1 and 9999' };
  return read.start;
}
