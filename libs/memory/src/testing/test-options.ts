import type { MemoryOptions } from '../memory.options.js';

/** A store's settings in the memory specs: small limits, vectors waited for briefly. */
export const TEST_MEMORY_OPTIONS: MemoryOptions = {
  enabled: true,
  topK: 5,
  maxTextChars: 200,
  maxPerUser: 1000,
  deletedRetentionSeconds: 30 * 86400,
  dedupeDistance: 0.05,
  embedWaitMs: 500,
};
