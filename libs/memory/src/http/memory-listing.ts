import { InvalidInputError } from '@app/common';
import type { MemoryKind } from '../memory.options.js';
import type { MemoryStore } from '../memory.store.js';
import type { ListMemoriesQueryDto, MemoryPageDto, UpdateMemoryDto } from './memory.dto.js';

/** Most results one search answers (the recall tool's `top_k` limit). */
const MAX_SEARCH_RESULTS = 50;

/**
 * A user's memories newest first by pages; with `q`, a search (the recall tool's retrieval), best
 * first, in one page: the user's own list and an admin's view of it answer alike.
 */
export async function listOrSearch(store: MemoryStore, userId: string, query: ListMemoriesQueryDto): Promise<MemoryPageDto> {
  const limit = query.limit;
  if (query.q === undefined)
    return store.list(userId, { limit, ...(query.kind ? { kind: query.kind } : {}), ...(query.cursor ? { cursor: query.cursor } : {}) });
  if (query.cursor) throw new InvalidInputError('A search answers a single page: drop cursor, or q', { cursor: 'not allowed with q' });
  if (limit > MAX_SEARCH_RESULTS)
    throw new InvalidInputError(`A search answers at most ${MAX_SEARCH_RESULTS} memories`, { limit: `at most ${MAX_SEARCH_RESULTS} with q` });
  return { items: await store.recall(userId, query.q, limit, query.kind), nextCursor: null };
}

/** The changes a PATCH asks for; one asking for none is a 400. */
export function changesOf(body: UpdateMemoryDto): { text?: string; kind?: MemoryKind } {
  if (body.text === undefined && body.kind === undefined)
    throw new InvalidInputError('Nothing to change: send text, kind or both', { text: 'text or kind is required' });
  return { ...(body.text !== undefined ? { text: body.text } : {}), ...(body.kind ? { kind: body.kind } : {}) };
}
