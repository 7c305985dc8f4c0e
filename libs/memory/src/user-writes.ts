import type { EntityManager } from 'typeorm';
import { vocabularyWords } from './text/memory-text.js';

/** Texts read per round trip while a vocabulary is rebuilt: a user may hold hundreds of thousands. */
const TEXTS_PER_FETCH = 5_000;

/**
 * Makes the caller's transaction the only writer of this user's memories until it ends, so that a
 * count, a dedupe check or a vocabulary rebuild still holds when the transaction writes.
 */
export async function lockUserWrites(manager: EntityManager, userId: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [userId]);
}

/**
 * Removes from the user's vocabulary (`memory_words`) every word that none of the memories they
 * still hold contains, once memories have left the table: the words of a purged or erased memory
 * would otherwise stay, and steer misspelt queries, forever. Runs inside a transaction that holds
 * `lockUserWrites`, so no new memory's words arrive between the reading and the deleting.
 */
export async function pruneVocabulary(manager: EntityManager, userId: string): Promise<void> {
  const kept = new Set<string>();
  // A cursor reads the texts in slices, whatever their number, without an index of its own.
  await manager.query('DECLARE vocabulary_texts NO SCROLL CURSOR FOR SELECT text FROM memories WHERE user_id = $1', [userId]);
  for (;;) {
    const rows: { text: string }[] = await manager.query(`FETCH ${TEXTS_PER_FETCH} FROM vocabulary_texts`);
    for (const { text } of rows) for (const word of vocabularyWords(text)) kept.add(word);
    if (rows.length < TEXTS_PER_FETCH) break;
  }
  await manager.query('CLOSE vocabulary_texts');
  await manager.query('DELETE FROM memory_words WHERE user_id = $1 AND word <> ALL($2::text[])', [userId, Array.from(kept)]);
}
