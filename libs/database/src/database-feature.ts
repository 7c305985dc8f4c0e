import type { ModulesContainer } from '@nestjs/core';
import type { EntitySchema } from 'typeorm';

/** A TypeORM migration class; its name ends in the timestamp that orders it among all others. */
export type MigrationClass = new () => unknown;

export type EntityClass = Function | EntitySchema;

export interface DatabaseFeatureOptions {
  entities?: EntityClass[];
  migrations?: MigrationClass[];
}

let features = 0;

/** One `DatabaseModule.forFeature` call, kept as a provider so the data source finds it in the app's own modules. */
export class DatabaseFeature {
  readonly entities: readonly EntityClass[];
  readonly migrations: readonly MigrationClass[];

  constructor(options: DatabaseFeatureOptions) {
    this.entities = options.entities ?? [];
    this.migrations = options.migrations ?? [];
  }

  /** Each call gets its own token, so two libs' features never replace each other. */
  static tokenFor(options: DatabaseFeatureOptions): string {
    const names = [...(options.migrations ?? []), ...(options.entities ?? [])].map((item) => (item as { name?: string }).name ?? '?');
    return `DatabaseFeature#${++features}(${names.join(',')})`;
  }
}

/**
 * The migrations of every feature of the app (not of the process: tests boot several apps at
 * once), each once; TypeORM orders them by the timestamp in their names.
 */
export function collectMigrations(modules: ModulesContainer): MigrationClass[] {
  const migrations = new Set<MigrationClass>();
  for (const module of modules.values()) {
    for (const wrapper of module.providers.values()) {
      if (wrapper.instance instanceof DatabaseFeature) wrapper.instance.migrations.forEach((migration) => migrations.add(migration));
    }
  }
  return [...migrations];
}
