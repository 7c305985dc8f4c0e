import type { Repository } from 'typeorm';
import type { VectorSearch } from '../embeddings/vector-search.js';
import type { MemoryEntity } from '../memory.entity.js';
import type { MemoryMention } from '../memory-view.js';
import { searchText } from '../text/memory-text.js';
import { fuseRankedLists } from './rank-fusion.js';
import { RELATED_COUNT, RELATED_MAX_DISTANCE, RELATED_MIN_SHARED_WORDS, relatedByWordsSql, type RelatedRow } from './related-sql.js';

/**
 * The user's current memories related to `text` (see `related-sql.ts`), best first, leaving out
 * those in `except` (the memory just stored and those it superseded). Words always; vectors when
 * the text's vector is at hand.
 */
export async function relatedMemories(
  memories: Repository<MemoryEntity>,
  vectors: VectorSearch | undefined,
  userId: string,
  text: string,
  vector: number[] | undefined,
  except: readonly string[],
): Promise<MemoryMention[]> {
  const lists: RelatedRow[][] = [await memories.query(relatedByWordsSql, [userId, searchText(text), except, RELATED_MIN_SHARED_WORDS, RELATED_COUNT])];
  if (vectors && vector) {
    const near = await vectors.neighbours(userId, vector, RELATED_COUNT, except);
    lists.push(near.filter((neighbour) => neighbour.distance <= RELATED_MAX_DISTANCE));
  }
  const found = lists.filter((list) => list.length > 0).map((list) => list.map((row) => ({ ...row, updatedAt: row.updated_at })));
  return fuseRankedLists(found, found.length, RELATED_COUNT, new Date()).map(({ candidate }) => ({
    id: candidate.id,
    text: candidate.text,
    key: candidate.key,
  }));
}
