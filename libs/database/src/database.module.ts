import { join, resolve } from 'node:path';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { getDataSourceToken, TypeOrmModule, type TypeOrmModuleOptions } from '@nestjs/typeorm';
import { AbstractLogger, QueryFailedError, type DataSource, type LogLevel, type LogMessage } from 'typeorm';
import type { DatabaseSettings } from './database.config.js';
import { EnableVector1795996800000 } from './migrations/1795996800000-enable-vector.js';
import { collectMigrations, DatabaseFeature, type DatabaseFeatureOptions, type MigrationClass } from './database-feature.js';
import { pgliteDriver } from './pglite-pool.js';
import { DatabaseTelemetry } from './database-telemetry.js';
import { TableMaintenance } from './table-maintenance.js';

/** Without `url`, an embedded PostgreSQL (PGlite) keeps its files in `${dataDir}/pg`. */
export interface DatabaseModuleOptions extends DatabaseSettings {
  /** The server's data directory. */
  dataDir: string;
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

  /** A slow query is noted with its duration and SQL, never its parameters: those are people's data. */
  override logQuerySlow(time: number, query: string): void {
    this.logger.warn(`Slow query (${time} ms): ${query}`);
  }

  protected writeLog(level: LogLevel, message: LogMessage | string | number | (LogMessage | string | number)[]): void {
    for (const { message: text } of this.prepareLogMessages(message)) {
      if (level === 'warn') this.logger.warn(String(text));
      else this.logger.log(String(text));
    }
  }
}

function typeOrmOptions(options: DatabaseModuleOptions, migrations: MigrationClass[]): TypeOrmModuleOptions {
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
    // Extensions come from migrations (which can guard on what the server offers); TypeORM would
    // otherwise try uuid-ossp, which neither the embedded database nor every managed server has.
    installExtensions: false,
    // `@PrimaryGeneratedColumn('uuid')` means `DEFAULT gen_random_uuid()`, built into PostgreSQL 13+.
    uuidExtension: 'pgcrypto',
    migrations: [EnableVector1795996800000, ...migrations],
    migrationsRun: true,
    synchronize: false,
    // 'schema' carries the migration progress lines; failures are always logged.
    logger: new NestTypeOrmLogger(['warn', 'schema']),
  };
}

/**
 * The database, with the same entities and migrations on embedded PGlite and on PostgreSQL.
 *
 * A lib brings its own tables with `DatabaseModule.forFeature({ entities, migrations })` in its
 * module's imports; the app is never edited for them. Every feature's migrations are collected
 * from the app's modules before the data source starts and run at start-up, ordered by the
 * timestamp their class name ends in; `synchronize` stays off, so every schema change is a migration.
 */
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [ModulesContainer],
          useFactory: (modules: ModulesContainer) => {
            new Logger('Database').log(`Using ${describeDatabase(options)}`);
            return typeOrmOptions(options, collectMigrations(modules));
          },
        }),
      ],
      providers: [
        DatabaseTelemetry,
        { provide: TableMaintenance, inject: [getDataSourceToken()], useFactory: (dataSource: DataSource) => new TableMaintenance(dataSource, !options.url) },
      ],
    };
  }

  /** A lib's tables: its entities (repositories become injectable in the lib) and the migrations that create them. */
  static forFeature(feature: DatabaseFeatureOptions): DynamicModule {
    const typeOrmFeature = TypeOrmModule.forFeature(feature.entities ?? []);
    return {
      module: DatabaseModule,
      imports: [typeOrmFeature],
      providers: [{ provide: DatabaseFeature.tokenFor(feature), useValue: new DatabaseFeature(feature) }],
      exports: [typeOrmFeature],
    };
  }
}
