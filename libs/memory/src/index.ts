export { memoryConfig } from './memory.config.js';
export { DeletedMemoryRetention } from './deleted-memory-retention.js';
export { MemoryModule } from './memory.module.js';
export { MEMORY_KINDS, type MemoryKind, type MemoryOptions } from './memory.options.js';
export { MAX_IDS_PER_CALL, MAX_KEY_CHARS } from './memory-input.js';
export type { MemoryMention, MemoryView, RecalledMemory, RememberResult } from './memory-view.js';
export { MAX_RECALL_QUERY_CHARS, MEMORY_DISABLED_MESSAGE, MemoryStore, type MemoryChanges, type RememberInput } from './memory.store.js';
export { readMemoryTime, validityOf, type MemoryValidity } from './validity/memory-validity.js';
