export { DatabaseModule, type DatabaseModuleOptions, type MigrationClass } from './database.module.js';
export { DirectoryLockedError } from './directory-lock.js';
