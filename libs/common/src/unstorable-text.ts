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

/** The dotted paths (array items by index) of the strings in `value` that hold U+0000, and of keys that do. */
export function pathsWithNul(value: unknown, prefix = ''): string[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [prefix] : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return key.includes('\u0000') ? [path] : pathsWithNul(item, path);
  });
}
