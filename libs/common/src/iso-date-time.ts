/** How much of a moment the text names: `2026` a year, `2026-01` a month, `2026-01-05` a day, `2026-01-05T10:00Z` a moment. */
export type DateTimePrecision = 'year' | 'month' | 'day' | 'moment';

/** A date or date-time read by `readIsoDateTime`. */
export interface IsoDateTime {
  /** The first instant it covers: midnight UTC at the start of a year, month or day. */
  start: Date;
  /** The instant after the last it covers: the start of the next year, month or day; a moment covers one millisecond. */
  end: Date;
  precision: DateTimePrecision;
}

const ISO_DATE_TIME = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-](\d{2}):(\d{2}))?)?)?)?$/;

/** No place's offset from UTC is larger (Kiribati, +14:00). */
const MAX_OFFSET_HOURS = 14;

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (year: number, month: number) => (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!);

/**
 * Reads an ISO 8601 date or date-time (`2026`, `2026-01`, `2026-01-05`, `2026-01-05T10:00:00.5+01:00`)
 * of the precisions in `precisions`, or says in a sentence why it cannot. It refuses what `new Date()`
 * would silently turn into another moment or make up: a day its month does not have (`2026-02-30`
 * would be 2 March), hour 24, a leap second (`:60`, which FHIR's format allows and no JavaScript
 * date holds), an offset beyond ±14:00, and a time of day without `Z` or an offset (the server's
 * local time, whatever that is).
 */
export function readIsoDateTime(text: string, precisions: readonly DateTimePrecision[]): IsoDateTime | { problem: string } {
  const match = ISO_DATE_TIME.exec(text);
  const precision = match && (match[4] ? 'moment' : match[3] ? 'day' : match[2] ? 'month' : 'year');
  if (!match || !precision || !precisions.includes(precision)) return { problem: `must be ${described(precisions)}` };
  const [year, month = 1, day = 1, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part)));
  if (month < 1 || month > 12) return { problem: `has no month ${match[2]}` };
  if (day < 1 || day > daysIn(year!, month)) return { problem: `has no day ${match[3]} in ${match[1]}-${match[2]}` };
  if (second === 60) return { problem: 'is a leap second (:60), which cannot be stored: use :59' };
  if (hour > 23 || minute > 59 || second > 59) return { problem: `has no time of day ${match[4]}:${match[5]}${match[6] ? `:${match[6]}` : ''}` };
  if (precision === 'moment' && !match[8]) return { problem: 'needs a time zone after the time of day: Z or an offset such as +01:00' };
  const [offsetHours, offsetMinutes] = [Number(match[9] ?? 0), Number(match[10] ?? 0)];
  if (offsetMinutes > 59 || offsetHours * 60 + offsetMinutes > MAX_OFFSET_HOURS * 60) {
    return { problem: `has an offset beyond ±${MAX_OFFSET_HOURS}:00` };
  }
  if (precision === 'moment') {
    const start = new Date(text);
    return { start, end: new Date(start.getTime() + 1), precision };
  }
  // Not `Date.UTC`, which reads years 0 to 99 as 1900 to 1999.
  const start = new Date(0);
  start.setUTCFullYear(year!, month - 1, day);
  const end = new Date(start);
  if (precision === 'year') end.setUTCFullYear(year! + 1);
  else if (precision === 'month') end.setUTCMonth(month);
  else end.setUTCDate(day + 1);
  return { start, end, precision };
}

function described(precisions: readonly DateTimePrecision[]): string {
  const examples: Record<DateTimePrecision, string> = { year: '2026', month: '2026-01', day: '2026-01-05', moment: '2026-01-05T10:00:00Z' };
  const kinds = precisions.includes('moment')
    ? precisions.length > 1
      ? 'an ISO 8601 date or date-time'
      : 'an ISO 8601 date-time with a time zone'
    : 'an ISO 8601 date';
  return `${kinds} such as ${precisions.map((precision) => examples[precision]).join(' or ')}`;
}
