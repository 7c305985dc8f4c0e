import type { EmbeddingsSettings } from './embeddings/embeddings-client.js';

export const MEMORY_KINDS = ['fact', 'preference', 'episode'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** The memory lib's options; the keys of `memoryConfig` map onto it. */
export interface MemoryOptions {
  /** When false the tools stay listed and answer "Long-term memory is not enabled on this server". */
  enabled: boolean;
  /** How many memories recall returns when the caller does not say. */
  topK: number;
  maxTextChars: number;
  /** Live (not deleted) memories one user may keep; with the deleted ones awaiting their purge, twice as many. */
  maxPerUser: number;
  /** How long a memory the user deleted is kept before it is purged, in seconds; 0 keeps it forever. */
  deletedRetentionSeconds: number;
  /**
   * Cosine distance under which a new text counts as a near-duplicate of a live memory of the same
   * user (only when vectors are available): 0 is the same direction, 2 the opposite one.
   */
  dedupeDistance: number;
  /** How long `remember` waits for the new text's vector, to find a near-duplicate, before storing without it. */
  embedWaitMs: number;
  /** The embeddings provider; without it retrieval is lexical only. */
  embeddings?: EmbeddingsSettings;
}

export const MEMORY_OPTIONS = Symbol('MEMORY_OPTIONS');

/** The section of the app's configuration (`ConfigService`) that holds `MemoryOptions`. */
export const MEMORY_CONFIG_SECTION = 'memory';
