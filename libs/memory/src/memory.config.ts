import { ConfigError, bool, defineConfigSection, duration, int, optionalStr, type KeySpec } from '@app/common';
import type { MemoryOptions } from './memory.options.js';

/** A decimal number within [min, max]. */
function decimal(fallback: number, min: number, max: number): KeySpec<number> {
  return {
    fallback,
    describe: `number from ${min} to ${max} (default ${fallback})`,
    parse(raw, key) {
      const value = Number(raw);
      if (!/^\s*\d*\.?\d+\s*$/.test(raw) || value < min || value > max) throw new ConfigError(key, `expected a number from ${min} to ${max}, got "${raw}"`);
      return value;
    },
  };
}

/** The long-term memory keys; docs/configuration.md documents them. */
export const memoryConfig = defineConfigSection({
  keys: {
    MEMORY_ENABLED: bool(true),
    MEMORY_TOP_K: int(5, { min: 1, max: 50 }),
    MEMORY_MAX_TEXT_CHARS: int(2000, { min: 1, max: 100_000 }),
    MEMORY_MAX_PER_USER: int(100_000, { min: 1, max: 10_000_000 }),
    /** How long a memory the user deleted is kept (in their export) before it is purged; 0 keeps it forever. */
    MEMORY_DELETED_RETENTION: duration(30 * 86400, { minSeconds: 0, maxSeconds: 100 * 366 * 86400, unitRequired: true }),
    MEMORY_DEDUPE_DISTANCE: decimal(0.05, 0, 2),
    MEMORY_EMBED_WAIT_MS: int(1500, { min: 0, max: 60_000 }),
    EMBEDDING_BASE_URL: optionalStr({ pattern: /^https?:\/\/\S+$/, expected: 'an http(s) URL such as https://api.openai.com/v1' }),
    EMBEDDING_API_KEY: optionalStr({ secret: true }),
    EMBEDDING_MODEL: optionalStr({}),
    EMBEDDING_DIMENSIONS: int(0, { min: 0, max: 16_000 }),
    EMBEDDING_TIMEOUT_MS: int(10_000, { min: 100, max: 120_000 }),
  },
  validate(values) {
    if (!values.EMBEDDING_BASE_URL) return;
    if (!values.EMBEDDING_MODEL) throw new ConfigError('EMBEDDING_MODEL', 'required when EMBEDDING_BASE_URL is set');
    if (!values.EMBEDDING_DIMENSIONS)
      throw new ConfigError('EMBEDDING_DIMENSIONS', "required when EMBEDDING_BASE_URL is set (the length of the model's vectors)");
  },
  toOptions: (values): MemoryOptions => ({
    enabled: values.MEMORY_ENABLED,
    topK: values.MEMORY_TOP_K,
    maxTextChars: values.MEMORY_MAX_TEXT_CHARS,
    maxPerUser: values.MEMORY_MAX_PER_USER,
    deletedRetentionSeconds: values.MEMORY_DELETED_RETENTION,
    dedupeDistance: values.MEMORY_DEDUPE_DISTANCE,
    embedWaitMs: values.MEMORY_EMBED_WAIT_MS,
    ...(values.EMBEDDING_BASE_URL
      ? {
          embeddings: {
            baseUrl: values.EMBEDDING_BASE_URL,
            apiKey: values.EMBEDDING_API_KEY,
            model: values.EMBEDDING_MODEL!,
            dimensions: values.EMBEDDING_DIMENSIONS,
            timeoutMs: values.EMBEDDING_TIMEOUT_MS,
          },
        }
      : {}),
  }),
});
