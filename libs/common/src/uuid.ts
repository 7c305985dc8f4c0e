/** A UUID as PostgreSQL's `uuid` type reads it: 32 hexadecimal digits in 8-4-4-4-12 groups, either case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a UUID: the one check before an id from outside (a path, a token's claim, a
 * form) reaches a `uuid` column, where anything else would be a database error rather than "not found".
 */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
