export { DatabaseModule, type DatabaseModuleOptions, type MigrationClass } from './database.module.js';
export { pgliteDriver } from './pglite-pool.js';
