import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database.module.js';
import { CreateServerInstances1797400100000 } from '../migrations/1797400100000-create-server-instances.js';
import { DatabaseProbe } from './database-probe.js';
import { ServerInstanceEntity } from './server-instance.entity.js';
import { ServerInstances } from './server-instances.js';

/**
 * The deployment as the database sees it: which instances run (`ServerInstances`, each reporting
 * itself every 15 s) and whether the database answers (`DatabaseProbe`). The app imports it once.
 */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [ServerInstanceEntity], migrations: [CreateServerInstances1797400100000] })],
  providers: [ServerInstances, DatabaseProbe],
  exports: [ServerInstances, DatabaseProbe],
})
export class DeploymentModule {}
