import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { optionsFromConfig } from '@app/common';
import { DatabaseModule } from '@app/database';
import { DeletedMemoryRetention } from './deleted-memory-retention.js';
import { AdminMemoriesController } from './http/admin-memories.controller.js';
import { MemoriesController } from './http/memories.controller.js';
import { MemoryEntity } from './memory.entity.js';
import { MEMORY_CONFIG_SECTION, MEMORY_OPTIONS } from './memory.options.js';
import { MemoryStore } from './memory.store.js';
import { MemoryUserData } from './memory-user-data.js';
import { MEMORY_MIGRATIONS } from './migrations/memory-migrations.js';

/**
 * Long-term memories: the `memories` table, `MemoryStore`, the user and admin REST routes, export
 * and erase, the purge of deleted ones. Its options are the app configuration's `memory` section;
 * a module whose services use `MemoryStore` imports this one.
 */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [MemoryEntity], migrations: MEMORY_MIGRATIONS }), AuthModule],
  controllers: [MemoriesController, AdminMemoriesController],
  providers: [optionsFromConfig(MEMORY_OPTIONS, MEMORY_CONFIG_SECTION), MemoryStore, MemoryUserData, DeletedMemoryRetention],
  exports: [MemoryStore],
})
export class MemoryModule {}
