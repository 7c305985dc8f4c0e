import { InvalidInputError, readIsoDateTime, type DateTimePrecision } from '@app/common';

/** A bound on clinical time from a FHIR `date` search parameter (`ge2026-01-01`, `lt2026-02-01T10:00:00Z`, `2026-01-05`). */
export interface DateBound {
  operator: '>=' | '>' | '<=' | '<';
  at: Date;
}

const DATE_SEARCH_VALUE = /^(eq|ne|gt|lt|ge|le|sa|eb|ap)?(.*)$/;
const ANY_PRECISION: readonly DateTimePrecision[] = ['year', 'month', 'day', 'moment'];

/**
 * FHIR date search on clinical time; a date without a prefix (or `eq`) means "within that day/month/year".
 * Prefixes this server does not implement are refused by name rather than ignored. A date the calendar does
 * not have, or a time of day without a zone, is refused as `readIsoDateTime` refuses it: the stored times
 * all have one (see fhir-validation.ts), so a search time without one could only be guessed.
 */
export function parseDateParams(values: readonly string[]): DateBound[] {
  return values.flatMap((raw) => {
    const [, prefixed, value] = DATE_SEARCH_VALUE.exec(raw.trim())!;
    const read = readIsoDateTime(value!, ANY_PRECISION);
    if ('problem' in read) {
      const problem = /^\d{4}/.test(value!) ? `${value} ${read.problem}` : 'is not a FHIR date search value such as ge2026-01-01 or 2026-01-05';
      throw new InvalidInputError(`date: "${raw}" ${problem}`, { date: 'invalid date' });
    }
    const { start, end } = read;
    const prefix = prefixed ?? 'eq';
    switch (prefix) {
      case 'eq':
        return [
          { operator: '>=', at: start },
          { operator: '<', at: end },
        ] satisfies DateBound[];
      case 'ge':
        return [{ operator: '>=', at: start }] satisfies DateBound[];
      case 'gt':
        return [{ operator: '>=', at: end }] satisfies DateBound[];
      case 'le':
        return [{ operator: '<', at: end }] satisfies DateBound[];
      case 'lt':
        return [{ operator: '<', at: start }] satisfies DateBound[];
      default:
        throw new InvalidInputError(`date: the prefix "${prefix}" is not supported; use eq, ge, gt, le or lt`, { date: 'unsupported prefix' });
    }
  });
}

/**
 * The alternatives of a FHIR search value: `a,b` means a or b, and `\,` is a comma inside one (as is
 * `\\` a backslash). An empty alternative (`a,,b`, `a,`) is refused rather than matched against nothing.
 */
export function searchAlternatives(name: string, value: string): string[] {
  const alternatives = [''];
  for (let index = 0; index < value.length; index++) {
    const char = value[index]!;
    const next = value[index + 1];
    if (char === '\\' && (next === ',' || next === '\\')) alternatives[alternatives.length - 1] += value[++index];
    else if (char === ',') alternatives.push('');
    else alternatives[alternatives.length - 1] += char;
  }
  if (alternatives.some((alternative) => alternative.trim() === '')) {
    throw new InvalidInputError(`${name}: "${value}" has an empty alternative; separate values with single commas`, { [name]: 'empty alternative' });
  }
  return alternatives;
}

/** A FHIR token (`system|code`, `code`, or `|code`), matched against the observation's code. */
export function parseToken(value: string): { system?: string; code: string } {
  const bar = value.indexOf('|');
  if (bar < 0) return { code: value };
  const system = value.slice(0, bar);
  return { ...(system ? { system } : {}), code: value.slice(bar + 1) };
}
