import { Injectable } from '@nestjs/common';
import type { UserInfo } from '@app/common';
import { Arg, CurrentUser, fail, McpTool, ok, type ToolResult } from '@app/mcp';
import { MAX_RECALL_QUERY_CHARS, MEMORY_DISABLED_MESSAGE, MemoryStore, type MemoryKind } from '@app/memory';

interface Remembered {
  id: string;
  stored: true;
  /** Present when the text matched a memory the user already had, which was refreshed instead. */
  deduplicated?: true;
}

interface Recalled {
  memories: { id: string; text: string; kind: MemoryKind; score: number; created_at: string }[];
}

/** `remember` and `recall_memory`: the seed's contract, over `MemoryStore`. */
@Injectable()
export class MemoryToolsService {
  constructor(private readonly store: MemoryStore) {}

  /**
   * Store one durable fact about the user (a stable preference, a goal, a personal detail worth
   * recalling later) in their long-term memory, so a later turn can find it with recall_memory.
   * Write it as one self-contained sentence, e.g. "The user is allergic to peanuts". Saying the
   * same thing again refreshes the existing memory instead of storing it twice.
   */
  @McpTool({
    scopes: ['memory:write'],
    annotations: { title: 'Remember', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  async remember(
    @CurrentUser() user: UserInfo,
    @Arg('text', { description: 'The fact to remember, as one self-contained sentence', schema: { minLength: 1 } }) text: string,
    /** Category: fact, preference or episode */ kind: MemoryKind = 'fact',
  ): Promise<ToolResult<Remembered>> {
    if (!this.store.enabled) return fail(MEMORY_DISABLED_MESSAGE);
    const { id, deduplicated } = await this.store.remember(user.userId, { text, kind, source: user.conversationId ?? user.sessionId ?? null });
    return ok(deduplicated ? { id, stored: true, deduplicated: true } : { id, stored: true });
  }

  /**
   * Find the user's long-term memories (facts, preferences, past context) most relevant to a query,
   * best first, so the answer can build on what is already known about them. Works for English and
   * Chinese, and tolerates misspellings.
   */
  @McpTool({
    scopes: ['memory:read'],
    annotations: { title: 'Recall memory', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  async recallMemory(
    @CurrentUser() user: UserInfo,
    @Arg('query', {
      description: 'What to look for in the user\'s memories, e.g. "food allergies"',
      schema: { minLength: 1, maxLength: MAX_RECALL_QUERY_CHARS },
    })
    query: string,
    @Arg('top_k', {
      description: 'How many memories to return at most (default 5 unless the server sets MEMORY_TOP_K)',
      type: 'integer',
      optional: true,
      schema: { minimum: 1, maximum: 50 },
    })
    topK: number | undefined,
  ): Promise<ToolResult<Recalled>> {
    if (!this.store.enabled) return fail(MEMORY_DISABLED_MESSAGE);
    const memories = await this.store.recall(user.userId, query, topK ?? this.store.defaultTopK);
    return ok({
      memories: memories.map((memory) => ({
        id: memory.id,
        text: memory.text,
        kind: memory.kind,
        score: memory.score,
        created_at: memory.createdAt.toISOString(),
      })),
    });
  }
}
