export { DatabaseModule, type DatabaseModuleOptions, type MigrationClass } from './database.module.js';
