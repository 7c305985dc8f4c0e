import { InvalidInputError, invalidRequest, type PageQueryDto } from '@app/common';
import type { MemoryStore, MemoryChanges } from '../memory.store.js';
import { validityOf } from '../validity/memory-validity.js';
import type { ListMemoriesQueryDto, MemoryHistoryDto, MemoryPageDto, UpdateMemoryDto } from './memory.dto.js';

/** Most results one search answers (the recall tool's `top_k` limit). */
const MAX_SEARCH_RESULTS = 50;

/**
 * A user's memories newest first by pages; with `q`, a search (the recall tool's retrieval), best
 * first, in one page; current ones unless `asOf` or `includeHistory` asks for others. The user's
 * own list and an admin's view of it answer alike.
 */
export async function listOrSearch(store: MemoryStore, userId: string, query: ListMemoriesQueryDto): Promise<MemoryPageDto> {
  const validity = validityOf(query.asOf, query.includeHistory);
  if (typeof validity === 'object' && 'problem' in validity) throw invalidRequest({ includeHistory: 'not allowed with asOf' });
  const limit = query.limit;
  if (query.q === undefined)
    return store.list(userId, { limit, validity, ...(query.kind ? { kind: query.kind } : {}), ...(query.cursor ? { cursor: query.cursor } : {}) });
  if (query.cursor) throw new InvalidInputError('A search answers a single page: drop cursor, or q', { cursor: 'not allowed with q' });
  if (limit > MAX_SEARCH_RESULTS)
    throw new InvalidInputError(`A search answers at most ${MAX_SEARCH_RESULTS} memories`, { limit: `at most ${MAX_SEARCH_RESULTS} with q` });
  return { items: await store.recall(userId, query.q, limit, query.kind, validity), nextCursor: null };
}

/** One page of the versions of the fact a memory states. */
export function historyPage(store: MemoryStore, userId: string, id: string, query: PageQueryDto): Promise<MemoryHistoryDto> {
  return store.history(userId, id, { limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) });
}

/** The changes a PATCH asks for; one asking for none is a 400. */
export function changesOf(body: UpdateMemoryDto): MemoryChanges {
  const changes: MemoryChanges = {
    ...(body.text !== undefined ? { text: body.text } : {}),
    ...(body.kind ? { kind: body.kind } : {}),
    ...(body.key !== undefined ? { key: body.key } : {}),
    ...(body.validFrom ? { validFrom: body.validFrom } : {}),
  };
  if (Object.keys(changes).length === 0)
    throw new InvalidInputError('Nothing to change: send text, kind, key or validFrom', { text: 'text, kind, key or validFrom is required' });
  return changes;
}
