import { CreateMemories1796094241000 } from './migrations/1796094241000-create-memories.js';

export { MemoryModule } from './memory.module.js';
export { MEMORY_KINDS, type MemoryKind, type MemoryOptions } from './memory.options.js';
export { MEMORY_DISABLED_MESSAGE, MemoryStore, type MemoryView, type RecalledMemory, type RememberResult } from './memory.store.js';
export { MemoryEntity } from './memory.entity.js';

/** The memory tables' migrations, for `DatabaseModule.forRoot({ migrations })`. */
export const MEMORY_MIGRATIONS = [CreateMemories1796094241000];
