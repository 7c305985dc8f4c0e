import { ConfigError, defineConfigSection, optionalStr, parseUrl } from '@app/common';

/** The database settings of `DatabaseModule.forRoot` that come from the configuration (the data directory is the app's). */
export interface DatabaseSettings {
  /** A PostgreSQL server; without it the embedded database is used. */
  url?: string;
}

/** Never echoes the value: the URL may carry a password. */
function databaseUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const url = parseUrl(raw);
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || !url.hostname) {
    throw new ConfigError('DATABASE_URL', 'expected postgres://user:password@host:port/database');
  }
  return raw;
}

/** `DATABASE_URL`: the PostgreSQL server, or unset for the embedded PostgreSQL (PGlite) in the data directory. */
export const databaseConfig = defineConfigSection({
  keys: { DATABASE_URL: optionalStr() },
  toOptions: (values): DatabaseSettings => ({ url: databaseUrl(values.DATABASE_URL) }),
});
