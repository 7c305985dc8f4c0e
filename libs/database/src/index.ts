export { DatabaseModule, describeDatabase, embeddedDir, type DatabaseModuleOptions } from './database.module.js';
export type { DatabaseFeatureOptions, EntityClass, MigrationClass } from './database-feature.js';
export { pgliteDriver } from './pglite-pool.js';
export { DirectoryLockedError, lockHolder } from './directory-lock.js';
export { databaseConfig, type DatabaseSettings } from './database.config.js';
