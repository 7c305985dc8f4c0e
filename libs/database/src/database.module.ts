import { join, resolve } from 'node:path';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule, type TypeOrmModuleOptions } from '@nestjs/typeorm';
import { AbstractLogger, QueryFailedError, type LogLevel, type LogMessage } from 'typeorm';
import { EnableVector1795996800000 } from './migrations/1795996800000-enable-vector.js';
import { pgliteDriver } from './pglite-pool.js';

/** A TypeORM migration class; its name ends in the timestamp that orders it among all others. */
export type MigrationClass = new () => unknown;

export interface DatabaseModuleOptions {
  /** `postgres://` URL of a PostgreSQL server. Without it, an embedded PostgreSQL (PGlite) keeps its files in `${dataDir}/pg`. */
  url?: string;
  /** The server's data directory. */
  dataDir: string;
  /** Migrations of other libs, run with the database lib's own at start-up, all ordered by timestamp. */
  migrations?: MigrationClass[];
}

/** Where the data lives, for the start-up log; never the password. */
export function describeDatabase(options: DatabaseModuleOptions): string {
  if (!options.url) return `embedded PostgreSQL (PGlite) in ${embeddedDir(options.dataDir)}`;
  const url = new URL(options.url);
  return `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
}

/** The embedded database's directory inside the data directory. */
export const embeddedDir = (dataDir: string) => join(resolve(dataDir), 'pg');

/** TypeORM's migration notes and warnings go through Nest's Logger, and so into the JSON logs. */
class NestTypeOrmLogger extends AbstractLogger {
  private readonly logger = new Logger('Database');

  protected writeLog(level: LogLevel, message: LogMessage | string | number | (LogMessage | string | number)[]): void {
    for (const { message: text } of this.prepareLogMessages(message)) {
      if (level === 'warn') this.logger.warn(String(text));
      else this.logger.log(String(text));
    }
  }
}

function typeOrmOptions(options: DatabaseModuleOptions): TypeOrmModuleOptions {
  const connectionTimeoutMillis = 10_000;
  const target = options.url
    ? // A server may still be starting (as in docker compose): retry reaching it for half a minute.
      { url: options.url, connectTimeoutMS: connectionTimeoutMillis, retryAttempts: 10, retryDelay: 3000 }
    : {
        driver: pgliteDriver({ dataDir: embeddedDir(options.dataDir), connectionTimeoutMillis }),
        // Nothing to wait for: an embedded database that fails to open fails the same way again.
        retryAttempts: 1,
      };
  return {
    type: 'postgres',
    ...target,
    // A failed migration fails the same way on every attempt.
    toRetry: (error: unknown) => !(error instanceof QueryFailedError),
    autoLoadEntities: true,
    migrations: [EnableVector1795996800000, ...(options.migrations ?? [])],
    migrationsRun: true,
    synchronize: false,
    // 'schema' carries the migration progress lines; failures are always logged.
    logger: new NestTypeOrmLogger(['warn', 'schema']),
  };
}

/**
 * The database, with the same entities and migrations on embedded PGlite and on PostgreSQL.
 *
 * Libs bring their own tables this way:
 * - entities: `TypeOrmModule.forFeature([Entity])` in the lib's module registers them (`autoLoadEntities`);
 * - migrations: the lib exports its migration classes and the app passes them in `migrations`.
 * Migrations run at start-up; `synchronize` stays off, so every schema change is a migration.
 */
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => {
            new Logger('Database').log(`Using ${describeDatabase(options)}`);
            return typeOrmOptions(options);
          },
        }),
      ],
    };
  }
}
