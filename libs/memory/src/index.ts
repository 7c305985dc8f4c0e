export { memoryConfig } from './memory.config.js';
export { DeletedMemoryRetention } from './deleted-memory-retention.js';
export { MemoryModule } from './memory.module.js';
export { MEMORY_KINDS, type MemoryKind, type MemoryOptions } from './memory.options.js';
export { MAX_RECALL_QUERY_CHARS, MEMORY_DISABLED_MESSAGE, MemoryStore, type MemoryView, type RecalledMemory, type RememberResult } from './memory.store.js';
