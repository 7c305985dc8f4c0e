import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { DeletedMemoryRetention } from './deleted-memory-retention.js';
import { AdminMemoriesController } from './http/admin-memories.controller.js';
import { MemoriesController } from './http/memories.controller.js';
import { MemoryEntity } from './memory.entity.js';
import { MEMORY_OPTIONS, type MemoryOptions } from './memory.options.js';
import { MemoryStore } from './memory.store.js';
import { MemoryUserData } from './memory-user-data.js';
import { CreateMemories1796094241000 } from './migrations/1796094241000-create-memories.js';
import { IndexDeletedMemories1796326541000 } from './migrations/1796326541000-index-deleted-memories.js';

/** Long-term memories: the `memories` table, `MemoryStore`, the user and admin REST routes, export and erase, the purge of deleted ones. */
@Module({})
export class MemoryModule {
  static forRoot(options: MemoryOptions): DynamicModule {
    return {
      module: MemoryModule,
      // Tools in deployed tool directories (and other libs) inject MemoryStore without importing this module.
      global: true,
      imports: [DatabaseModule.forFeature({ entities: [MemoryEntity], migrations: [CreateMemories1796094241000, IndexDeletedMemories1796326541000] })],
      controllers: [MemoriesController, AdminMemoriesController],
      providers: [{ provide: MEMORY_OPTIONS, useValue: options }, MemoryStore, MemoryUserData, DeletedMemoryRetention],
      exports: [MemoryStore],
    };
  }
}
