import type { EntityManager } from 'typeorm';
import { InvalidInputError } from '@app/common';
import type { MemoryMention } from '../memory-view.js';
import { moveValidFromSql, notCurrentSql, supersedeSql } from './chain-sql.js';

/** Thrown inside `remember`'s transaction (which it rolls back) when ids given to replace were not all current. */
export class NotCurrentError extends Error {
  constructor(readonly ids: readonly string[]) {
    super(`Not current: ${ids.join(', ')}`);
  }
}

/** What `remember` supersedes: the ids the caller named, and the current memory with the key it gave. */
export interface Supersession {
  /** The memory taking their place: stored after this (its id chosen before), or a current one the text matched. */
  successor: string;
  /** When it became true (null: its own `valid_from`, or now for one not stored yet). */
  validFrom: Date | null;
  replaces: readonly string[];
  key: string | null;
}

/**
 * Ends the memories `successor` replaces, in the caller's transaction, and answers them. Every id
 * named must have been a current memory of the user (the successor itself aside: a restated fact
 * refreshes it); otherwise `NotCurrentError`, and the transaction is to be rolled back.
 */
export async function supersede(manager: EntityManager, userId: string, change: Supersession): Promise<MemoryMention[]> {
  const ended: MemoryMention[] = await manager.query(supersedeSql, [userId, change.successor, change.validFrom, change.replaces, change.key]);
  const endedIds = new Set(ended.map((memory) => memory.id));
  const missing = change.replaces.filter((id) => id !== change.successor && !endedIds.has(id));
  if (missing.length) throw new NotCurrentError(missing);
  return ended;
}

/** Moves a memory's `valid_from`, and the end of those it superseded with it; false when the memory is not the user's, or deleted. */
export async function moveValidFrom(manager: EntityManager, userId: string, id: string, validFrom: Date): Promise<boolean> {
  const [{ moved }] = await manager.query(moveValidFromSql, [userId, id, validFrom]);
  return moved;
}

/**
 * The caller's error for ids that were not current memories of theirs, saying for each of their
 * own why (superseded by which, or deleted), and nothing about another user's or a missing one.
 */
export async function notCurrentError(manager: EntityManager, userId: string, ids: readonly string[]): Promise<InvalidInputError> {
  const rows: { id: string; superseded_by: string | null; deleted: boolean }[] = await manager.query(notCurrentSql, [userId, ids]);
  const reasons = ids.map((id) => {
    const row = rows.find((candidate) => candidate.id === id);
    if (!row) return `${id} is not a memory of yours`;
    if (row.deleted) return `${id} was deleted`;
    return row.superseded_by ? `${id} was already superseded by ${row.superseded_by}` : `${id} is no longer current`;
  });
  return new InvalidInputError(
    `replaces must name current memories of yours: ${reasons.join('; ')}. Nothing was stored: recall again and replace the current version`,
    {
      replaces: `not current memories of yours: ${ids.join(', ')}`,
    },
  );
}
