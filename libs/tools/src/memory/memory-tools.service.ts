import { Injectable } from '@nestjs/common';
import type { UserInfo } from '@app/common';
import { Arg, CurrentUser, fail, McpTool, ok, type ToolResult } from '@app/mcp';
import { MAX_IDS_PER_CALL, MAX_KEY_CHARS, MAX_RECALL_QUERY_CHARS, MEMORY_DISABLED_MESSAGE, MemoryStore, validityOf, type MemoryKind } from '@app/memory';
import { forModel, mentionForModel, TIME_ARGUMENT, timeArgument, type MemoryForModel, type MentionForModel } from './memory-tool-views.js';

interface Remembered {
  id: string;
  stored: true;
  /** Present when the text matched a current memory the user already had, which was refreshed instead. */
  deduplicated?: true;
  /** The memories this one superseded (by replaces or key): kept as history, no longer recalled by default. */
  superseded: MentionForModel[];
  /** Up to three current memories close to this one: if one is the same fact with an older value, call remember again with its id in replaces. */
  related: MentionForModel[];
}

interface Recalled {
  memories: MemoryForModel[];
}

/** `remember` and `recall_memory`, over `MemoryStore`: facts that change keep their history. */
@Injectable()
export class MemoryToolsService {
  constructor(private readonly store: MemoryStore) {}

  /**
   * Store one durable fact about the user (a stable preference, a goal, a personal detail worth
   * recalling later) in their long-term memory, so a later turn can find it with recall_memory.
   * Write it as one self-contained sentence, e.g. "The user is allergic to peanuts". Saying the
   * same thing again refreshes the existing memory instead of storing it twice.
   * When a fact changes (a move, a new doctor), recall_memory it first and pass the old memory's id
   * in replaces, or give facts that fill one slot the same key ("home city"): the old memory is kept
   * as history and no longer recalled by default. The answer lists related memories: if one is the
   * same fact with an older value, call remember again with the same text and its id in replaces.
   */
  @McpTool({
    scopes: ['memory:write'],
    annotations: { title: 'Remember', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  async remember(
    @CurrentUser() user: UserInfo,
    @Arg('text', { description: 'The fact to remember, as one self-contained sentence', schema: { minLength: 1 } }) text: string,
    /** Category: fact, preference or episode */ kind: MemoryKind = 'fact',
    @Arg('replaces', {
      description: 'Ids (from recall_memory) of current memories this one corrects or updates; each is superseded',
      type: Array,
      items: String,
      optional: true,
      schema: { maxItems: MAX_IDS_PER_CALL },
    })
    replaces: string[] | undefined,
    @Arg('key', {
      description: 'A short slot this fact fills, e.g. "home city" or "doctor": the current memory with the same key is superseded',
      optional: true,
      schema: { minLength: 1, maxLength: MAX_KEY_CHARS },
    })
    key: string | undefined,
    @Arg('valid_from', {
      description: `When the fact became true, if the user said (default: now): ${TIME_ARGUMENT}`,
      optional: true,
      schema: { minLength: 1 },
    })
    validFrom: string | undefined,
  ): Promise<ToolResult<Remembered>> {
    if (!this.store.enabled) return fail(MEMORY_DISABLED_MESSAGE);
    const when = timeArgument(validFrom, 'valid_from');
    const result = await this.store.remember(user.userId, {
      text,
      kind,
      source: user.conversationId ?? user.sessionId ?? null,
      ...(replaces ? { replaces } : {}),
      ...(key !== undefined ? { key } : {}),
      ...(when ? { validFrom: when } : {}),
    });
    return ok({
      id: result.id,
      stored: true,
      ...(result.deduplicated ? { deduplicated: true } : {}),
      superseded: result.superseded.map(mentionForModel),
      related: result.related.map(mentionForModel),
    });
  }

  /**
   * Find the user's long-term memories (facts, preferences, past context) most relevant to a query,
   * best first, so the answer can build on what is already known about them. Works for English and
   * Chinese, and tolerates misspellings. It answers current facts: a fact that changed comes back as
   * its newest version. as_of answers what was true at a given time; include_history adds the
   * versions that newer memories superseded (valid_to and superseded_by say when and by which).
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
    @Arg('as_of', { description: `Answer what was true at this time instead of now: ${TIME_ARGUMENT}`, optional: true, schema: { minLength: 1 } })
    asOf: string | undefined,
    @Arg('include_history', { description: 'Also return the superseded versions of the facts found, each after the version that replaced it', optional: true })
    includeHistory: boolean | undefined,
  ): Promise<ToolResult<Recalled>> {
    if (!this.store.enabled) return fail(MEMORY_DISABLED_MESSAGE);
    const validity = validityOf(timeArgument(asOf, 'as_of'), includeHistory);
    if (typeof validity === 'object' && 'problem' in validity) return fail(`as_of and include_history exclude each other: ${validity.problem}`);
    const memories = await this.store.recall(user.userId, query, topK ?? this.store.defaultTopK, undefined, validity);
    return ok({ memories: memories.map(forModel) });
  }
}
