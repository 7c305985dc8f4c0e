export { DatabaseModule, describeDatabase, embeddedDir, type DatabaseModuleOptions } from './database.module.js';
export type { DatabaseFeatureOptions, EntityClass, MigrationClass } from './database-feature.js';
export { pgliteDriver } from './pglite-pool.js';
export { DirectoryLockedError, lockHolder } from './directory-lock.js';
export { databaseConfig, type DatabaseSettings } from './database.config.js';
export { DeploymentModule } from './deployment/deployment.module.js';
export { DatabaseProbe, type DatabaseCheck, type DatabaseKind } from './deployment/database-probe.js';
export { ServerInstances } from './deployment/server-instances.js';
export { ServerInstanceEntity } from './deployment/server-instance.entity.js';
