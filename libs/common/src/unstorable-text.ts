/** SQLSTATEs of text PostgreSQL cannot store: U+0000 in a text value (22021) or in a jsonb string (22P05). */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

/** What is wrong with a field that holds the NUL character. */
export const NUL_PROBLEM = 'must not contain the NUL character (U+0000), which the database cannot store';

/**
 * Whether a database error refused text the caller sent: JSON strings and percent-encoded URLs
 * may carry U+0000, which PostgreSQL cannot store. Such an error is the caller's mistake (400, or a
 * tool's error result naming it), not the server's (500). Checked on TypeORM's `QueryFailedError`
 * (`driverError.code`) and on a driver's own error (`code`).
 */
export function isUnstorableText(error: unknown): boolean {
  const candidate = error as { code?: unknown; driverError?: { code?: unknown } } | undefined;
  const code = candidate?.driverError?.code ?? candidate?.code;
  return typeof code === 'string' && UNSTORABLE_TEXT_CODES.has(code);
}

/**
 * What is wrong with a field holding an unpaired surrogate, as `"\ud83d"` in JSON spells one (a
 * string cut inside an emoji does). JSON lets it through, UTF-8 cannot encode it: the drivers
 * would store U+FFFD in its place, silently changing what the caller sent.
 */
export const LONE_SURROGATE_PROBLEM = 'is not valid Unicode: it holds half of a surrogate pair (a character such as an emoji cut in two)';

/** The dotted paths (array items by index) of the strings in `value` that hold U+0000, and of keys that do. */
export function pathsWithNul(value: unknown, prefix = ''): string[] {
  return pathsOfStrings(value, (text) => text.includes('\u0000'), prefix, []);
}

/** The dotted paths of the strings in `value` holding an unpaired surrogate, and of keys that do. */
export function pathsWithLoneSurrogates(value: unknown, prefix = ''): string[] {
  return pathsOfStrings(value, (text) => !text.isWellFormed(), prefix, []);
}

function pathsOfStrings(value: unknown, faulty: (text: string) => boolean, prefix: string, found: string[]): string[] {
  if (typeof value === 'string') {
    if (faulty(value)) found.push(prefix);
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (faulty(key)) found.push(path);
      else pathsOfStrings((value as Record<string, unknown>)[key], faulty, path, found);
    }
  }
  return found;
}
