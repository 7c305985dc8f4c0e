import { InvalidInputError } from '@app/common';

/** A bound on clinical time from a FHIR `date` search parameter (`ge2026-01-01`, `lt2026-02-01T10:00:00Z`, `2026-01-05`). */
export interface DateBound {
  operator: '>=' | '>' | '<=' | '<';
  at: Date;
}

const DATE_VALUE = /^(eq|ne|gt|lt|ge|le|sa|eb|ap)?(\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?)$/;

/** The instant after the last moment a partial date (`2026`, `2026-01`, `2026-01-05`) covers. */
function endOfPrecision(value: string, start: Date): Date {
  const end = new Date(start);
  if (value.length === 4) end.setUTCFullYear(end.getUTCFullYear() + 1);
  else if (value.length === 7) end.setUTCMonth(end.getUTCMonth() + 1);
  else if (value.length === 10) end.setUTCDate(end.getUTCDate() + 1);
  else end.setTime(end.getTime() + 1);
  return end;
}

/**
 * FHIR date search on clinical time; a date without a prefix (or `eq`) means "within that day/month/year".
 * Prefixes this server does not implement are refused by name rather than ignored.
 */
export function parseDateParams(values: readonly string[]): DateBound[] {
  return values.flatMap((raw) => {
    const match = DATE_VALUE.exec(raw.trim());
    const start = match ? new Date(match[2]!.length === 4 ? `${match[2]}-01-01` : match[2]!.length === 7 ? `${match[2]}-01` : match[2]!) : null;
    if (!match || !start || Number.isNaN(start.getTime())) {
      throw new InvalidInputError(`date: "${raw}" is not a FHIR date search value such as ge2026-01-01 or 2026-01-05`, { date: 'invalid date' });
    }
    const prefix = match[1] ?? 'eq';
    const end = endOfPrecision(match[2]!, start);
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

/** A FHIR token (`system|code`, `code`, or `|code`), matched against the observation's code. */
export function parseToken(value: string): { system?: string; code: string } {
  const bar = value.indexOf('|');
  if (bar < 0) return { code: value };
  const system = value.slice(0, bar);
  return { ...(system ? { system } : {}), code: value.slice(bar + 1) };
}
