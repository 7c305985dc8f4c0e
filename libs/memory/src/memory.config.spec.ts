import { describe, expect, it } from '@jest/globals';
import { memoryConfig } from './memory.config.js';

describe('memoryConfig', () => {
  it('has the documented defaults and no provider', () => {
    expect(memoryConfig.load({})).toEqual({
      enabled: true,
      topK: 5,
      maxTextChars: 2000,
      maxPerUser: 100_000,
      deletedRetentionSeconds: 30 * 86400,
      dedupeDistance: 0.05,
      embedWaitMs: 1500,
    });
  });

  it('reads MEMORY_DELETED_RETENTION with its unit, 0 to keep deleted memories forever', () => {
    expect(memoryConfig.load({ MEMORY_DELETED_RETENTION: '12h' }).deletedRetentionSeconds).toBe(12 * 3600);
    expect(memoryConfig.load({ MEMORY_DELETED_RETENTION: '0' }).deletedRetentionSeconds).toBe(0);
  });

  it('reads an OpenAI-compatible provider', () => {
    const options = memoryConfig.load({
      EMBEDDING_BASE_URL: 'http://localhost:11434/v1',
      EMBEDDING_MODEL: 'nomic-embed-text',
      EMBEDDING_DIMENSIONS: '768',
      MEMORY_DEDUPE_DISTANCE: '0.1',
    });
    expect(options.embeddings).toEqual({
      baseUrl: 'http://localhost:11434/v1',
      apiKey: undefined,
      model: 'nomic-embed-text',
      dimensions: 768,
      timeoutMs: 10_000,
    });
    expect(options.dedupeDistance).toBe(0.1);
  });

  it.each([
    [{ MEMORY_TOP_K: '0' }, 'MEMORY_TOP_K'],
    [{ MEMORY_TOP_K: '51' }, 'MEMORY_TOP_K'],
    [{ MEMORY_ENABLED: 'yes' }, 'MEMORY_ENABLED'],
    [{ MEMORY_DEDUPE_DISTANCE: '3' }, 'MEMORY_DEDUPE_DISTANCE'],
    [{ MEMORY_DEDUPE_DISTANCE: 'close' }, 'MEMORY_DEDUPE_DISTANCE'],
    // 30 meant as days would purge what a user deleted half a minute ago.
    [{ MEMORY_DELETED_RETENTION: '30' }, 'MEMORY_DELETED_RETENTION'],
    [{ MEMORY_DELETED_RETENTION: 'forever' }, 'MEMORY_DELETED_RETENTION'],
    [{ EMBEDDING_BASE_URL: 'ftp://x' }, 'EMBEDDING_BASE_URL'],
    [{ EMBEDDING_BASE_URL: 'https://api.openai.com/v1', EMBEDDING_DIMENSIONS: '1536' }, 'EMBEDDING_MODEL'],
    [{ EMBEDDING_BASE_URL: 'https://api.openai.com/v1', EMBEDDING_MODEL: 'text-embedding-3-small' }, 'EMBEDDING_DIMENSIONS'],
  ])('refuses %j naming %s', (env, key) => {
    expect(() => memoryConfig.load(env)).toThrow(key);
  });

  it('never shows the API key in an error', () => {
    expect(() => memoryConfig.load({ EMBEDDING_API_KEY: 'sk-secret', EMBEDDING_BASE_URL: 'nope' })).toThrow(/^(?!.*sk-secret)/s);
  });
});
