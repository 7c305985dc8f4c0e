export { DatabaseModule, type DatabaseModuleOptions } from './database.module.js';
export type { DatabaseFeatureOptions, EntityClass, MigrationClass } from './database-feature.js';
