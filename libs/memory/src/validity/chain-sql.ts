import { instantKeySql } from '@app/common';
import { memoryColumns } from '../retrieval/retrieval-sql.js';

/**
 * The SQL of supersession. A memory that another replaced keeps its row, with `valid_to` (when it
 * stopped holding) and `superseded_by`; the versions of one fact are the memories linked that
 * way, its chain. Links stay within one user: a memory is superseded only by a memory of its owner.
 */

/**
 * Every memory linked to the origins through `superseded_by`, in either direction, with the
 * origin it was reached from (a chain is short: each version of a fact is one row). Deleted
 * versions are walked through (a forgotten one between two others) and returned marked, for the
 * caller to leave out. `UNION` makes the walk end even if links ever formed a loop.
 * $1 user, $2 the origins' ids.
 */
export const chainMembersSql = `
  WITH RECURSIVE chain (origin, id) AS (
    SELECT id, id FROM memories WHERE user_id = $1 AND id = ANY($2::uuid[])
    UNION
    SELECT chain.origin, linked.id FROM chain CROSS JOIN LATERAL (
      SELECT m.superseded_by AS id FROM memories m WHERE m.id = chain.id AND m.user_id = $1 AND m.superseded_by IS NOT NULL
      UNION ALL
      SELECT m.id FROM memories m WHERE m.superseded_by = chain.id AND m.user_id = $1) AS linked
  )
  SELECT chain.origin, ${memoryColumns('m')}, m.deleted_at IS NOT NULL AS deleted FROM chain JOIN memories m ON m.id = chain.id`;

/**
 * One page of a memory's chain, newest first by `valid_from` (keyset on it and the id), deleted
 * versions left out. $1 user, $2 the memory (in an array), $3/$4 the cursor's valid_from and id
 * (null: first page), $5 how many.
 */
export const chainPageSql = `
  WITH members AS (${chainMembersSql})
  SELECT ${memoryColumns()}, ${instantKeySql('valid_from')} AS valid_key FROM members
   WHERE NOT deleted AND ($3::timestamptz IS NULL OR (valid_from, id) < ($3::timestamptz, $4::uuid))
   ORDER BY valid_from DESC, id DESC LIMIT $5`;

/**
 * Ends the user's current memories that `successor` replaces: those in $4, and the current one
 * holding the key $5 (null: none), never the successor itself. Each stays valid until the
 * successor's `valid_from` ($3, else the successor's own, else now: it is stored after this
 * statement, which the deferred foreign key allows), never before its own. Only a memory still
 * current is ended: its `valid_to IS NULL` is read again once its row lock is held, so of two
 * writers that supersede the same memory at once the second gets nothing back for it, whatever
 * else serializes them. $1 user, $2 the successor's id. (A SELECT at the end: drivers then answer
 * rows alike, where they shape an UPDATE's answer each their own way.)
 */
export const supersedeSql = `
  WITH targets AS (
    SELECT id FROM memories WHERE user_id = $1 AND id = ANY($4::uuid[])
    UNION
    SELECT id FROM memories
     WHERE $5::text IS NOT NULL AND user_id = $1 AND md5(key) = md5($5::text) AND key = $5::text AND valid_to IS NULL AND deleted_at IS NULL
  ), successor AS (
    SELECT coalesce($3::timestamptz, (SELECT valid_from FROM memories WHERE id = $2::uuid AND user_id = $1), now()) AS valid_from
  ), ended AS (
    UPDATE memories SET valid_to = greatest(memories.valid_from, successor.valid_from), superseded_by = $2::uuid
      FROM targets, successor
     WHERE memories.id = targets.id AND memories.user_id = $1 AND memories.deleted_at IS NULL AND memories.valid_to IS NULL AND memories.id <> $2::uuid
    RETURNING memories.id, memories.text, memories.key
  )
  SELECT id, text, key FROM ended`;

/**
 * Moves a memory's `valid_from` to $3, and the end of the memories it superseded with it (never
 * before their own start): a fact that became true later means the one before held longer.
 * $1 user, $2 the memory. Answers whether the memory was there.
 */
export const moveValidFromSql = `
  WITH moved AS (
    UPDATE memories SET valid_from = $3::timestamptz, updated_at = now() WHERE id = $2 AND user_id = $1 AND deleted_at IS NULL RETURNING id
  ), predecessors AS (
    UPDATE memories SET valid_to = greatest(valid_from, $3::timestamptz)
     WHERE superseded_by = $2 AND user_id = $1 AND EXISTS (SELECT 1 FROM moved) RETURNING id
  )
  SELECT EXISTS (SELECT 1 FROM moved) AS moved`;

/**
 * Why ids given to replace were not current memories of the user: for their own memories that
 * are, the memory that superseded each or when they were deleted. $1 user, $2 the ids.
 */
export const notCurrentSql = `
  SELECT id, superseded_by, deleted_at IS NOT NULL AS deleted FROM memories WHERE user_id = $1 AND id = ANY($2::uuid[])`;
