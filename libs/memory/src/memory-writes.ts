import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { ConflictError, InvalidInputError } from '@app/common';
import { noRoom, roomLimits, storeIfRoomSql } from './deleted-memory-retention.js';
import type { VectorSearch } from './embeddings/vector-search.js';
import type { MemoryKind, MemoryOptions } from './memory.options.js';
import type { RememberResult } from './memory-view.js';
import { dedupeKey, searchText, vocabularyWords } from './text/memory-text.js';
import { lockUserWrites } from './user-writes.js';
import { moveValidFrom, supersede } from './validity/supersession.js';

/** What `remember` writes, checked. */
export interface StoreWrite {
  text: string;
  kind: MemoryKind;
  key: string | null;
  validFrom: Date | null;
  replaces: string[];
  source: string | null;
  /** The text's vector, when the provider gave it within the budget. */
  vector: number[] | undefined;
}

/**
 * `remember`'s transaction: refreshes the current memory that says the same, or stores a new one,
 * after superseding what it replaces (so that the key it takes over is free by then). The new
 * memory's id is chosen first, for the superseded ones to name it: the foreign key is checked at
 * commit. A `NotCurrentError` from `supersede` rolls it all back.
 */
export async function storeOrRefresh(
  manager: EntityManager,
  userId: string,
  write: StoreWrite,
  options: MemoryOptions,
  vectors: VectorSearch | undefined,
): Promise<Omit<RememberResult, 'related'>> {
  // One writer per user at a time, so the dedupe check and the counts hold until the insert.
  await lockUserWrites(manager, userId);
  const updates = write.key !== null || write.replaces.length > 0;
  // TypeORM answers an UPDATE or DELETE with [rows, affected].
  const [[same]] = await manager.query(
    `UPDATE memories SET updated_at = now(), kind = $3
     WHERE user_id = $1 AND deleted_at IS NULL AND valid_to IS NULL AND md5(dedupe_key) = md5($2) AND dedupe_key = $2 RETURNING id`,
    [userId, dedupeKey(write.text), write.kind],
  );
  // An update names what it changes: a text near by meaning would likely be the old value, so then only the same text is the same memory.
  if (!same && write.vector && vectors && !updates) {
    const [nearest] = await vectors.neighbours(userId, write.vector, 1, [], manager);
    if (nearest && nearest.distance <= options.dedupeDistance) {
      await manager.query('UPDATE memories SET updated_at = now(), kind = $2 WHERE id = $1', [nearest.id, write.kind]);
      return { id: nearest.id, deduplicated: true, superseded: [] };
    }
  }
  const successor: string = same?.id ?? randomUUID();
  if (same && write.validFrom) await moveValidFrom(manager, userId, successor, write.validFrom);
  const superseded = updates ? await supersede(manager, userId, { successor, validFrom: write.validFrom, replaces: write.replaces, key: write.key }) : [];
  if (same) {
    if (write.key !== null) await manager.query('UPDATE memories SET key = $3 WHERE id = $2 AND user_id = $1', [userId, successor, write.key]);
    return { id: successor, deduplicated: true, superseded };
  }
  const [row] = await manager.query(storeIfRoomSql, [
    userId,
    write.kind,
    write.text,
    dedupeKey(write.text),
    searchText(write.text),
    write.source,
    vocabularyWords(write.text),
    ...roomLimits(options),
    successor,
    write.key,
    write.validFrom,
  ]);
  if (!row.id) throw noRoom(row.live, row.held, options);
  if (write.vector && vectors) await vectors.store(manager, successor, userId, write.vector);
  return { id: successor, deduplicated: false, superseded };
}

/** The caller's error for an edit the database refused by one of its rules; any other error as it was. */
export function refusedEdit(error: unknown, key: string | null): unknown {
  const { code, constraint } = error as { code?: string; constraint?: string };
  if (code === '23505' && constraint === 'memories_user_current_key') {
    return new ConflictError(`Another current memory of yours has the key "${key}": store the new value with that key to supersede it, or choose another key`);
  }
  if (code === '23505') return new ConflictError('Another memory of yours already says the same thing');
  if (code === '23514' && constraint === 'memories_validity_check') {
    return new InvalidInputError('validFrom must not be after validTo: the memory that superseded this one became valid then', {
      validFrom: 'must not be after validTo',
    });
  }
  return error;
}
