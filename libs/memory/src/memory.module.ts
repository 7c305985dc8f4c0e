import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MemoryEntity } from './memory.entity.js';
import { MEMORY_OPTIONS, type MemoryOptions } from './memory.options.js';
import { MemoryStore } from './memory.store.js';

/** Long-term memories: the `memories` table and `MemoryStore`. */
@Module({})
export class MemoryModule {
  static forRoot(options: MemoryOptions): DynamicModule {
    return {
      module: MemoryModule,
      global: false,
      imports: [TypeOrmModule.forFeature([MemoryEntity])],
      providers: [{ provide: MEMORY_OPTIONS, useValue: options }, MemoryStore],
      exports: [MemoryStore],
    };
  }
}
