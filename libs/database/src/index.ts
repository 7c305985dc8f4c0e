export { DatabaseModule, describeDatabase, embeddedDir, type DatabaseModuleOptions, type MigrationClass } from './database.module.js';
export { DirectoryLockedError, lockHolder } from './directory-lock.js';
