import type { EntityManager } from 'typeorm';

/**
 * What erasing a user's account does to care circles, run in the erasure's transaction. Every invitation they
 * sent is voided (its token answers 410, its pending member row goes); their memberships go; and a circle
 * left without an accepted owner is handed to its longest-standing maintainer or, with none, closed. Members'
 * own health data is theirs, not the circle's, and stays.
 */
export async function removeErasedMember(manager: EntityManager, userId: string): Promise<void> {
  await voidInvitationsFrom(manager, userId);
  // Read before deleting: TypeORM answers a DELETE ... RETURNING with [rows, count], not the rows.
  const memberships: { circle_id: string }[] = await manager.query('SELECT circle_id FROM care_circle_members WHERE user_id = $1', [userId]);
  await manager.query('DELETE FROM care_circle_members WHERE user_id = $1', [userId]);
  await handOverOrClose(manager, [...new Set(memberships.map((row) => row.circle_id))]);
}

/**
 * The invitations `userId` sent no longer name anyone who answers for them: `invited_by` is cleared on all of
 * them; an open one keeps its row (so its token answers "no longer valid", not "no such invitation") but loses
 * the pending member row it created, which was never a member.
 */
async function voidInvitationsFrom(manager: EntityManager, userId: string): Promise<void> {
  const open: { member_id: string }[] = await manager.query(
    'SELECT member_id FROM care_circle_invitations WHERE invited_by = $1 AND used_at IS NULL AND member_id IS NOT NULL FOR UPDATE',
    [userId],
  );
  await manager.query(
    'UPDATE care_circle_invitations SET invited_by = NULL, member_id = CASE WHEN used_at IS NULL THEN NULL ELSE member_id END WHERE invited_by = $1',
    [userId],
  );
  await manager.query("DELETE FROM care_circle_members WHERE id = ANY($1::uuid[]) AND user_id IS NULL AND status = 'pending'", [
    open.map((row) => row.member_id),
  ]);
}

/**
 * Every circle among `circleIds` without an accepted owner gets one: the accepted maintainer who has been in it
 * longest (earliest member row). A circle with no maintainer either is closed: with nobody left to manage it,
 * nobody may go on reading anyone's data through it.
 */
async function handOverOrClose(manager: EntityManager, circleIds: string[]): Promise<void> {
  const ownerless = `c.id = ANY($1::uuid[])
     AND NOT EXISTS (SELECT 1 FROM care_circle_members o WHERE o.circle_id = c.id AND o.status = 'accepted' AND o.role = 'owner')`;
  await manager.query(
    `UPDATE care_circle_members SET role = 'owner', updated_at = now()
      WHERE id IN (SELECT DISTINCT ON (m.circle_id) m.id
                     FROM care_circles c JOIN care_circle_members m ON m.circle_id = c.id
                    WHERE ${ownerless} AND m.status = 'accepted' AND m.role = 'maintainer'
                    ORDER BY m.circle_id, m.created_at, m.id)`,
    [circleIds],
  );
  await manager.query(`DELETE FROM care_circles c WHERE ${ownerless}`, [circleIds]);
}
