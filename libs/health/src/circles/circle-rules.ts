import type { MemberRole } from '../entities/circle-member.entity.js';

/** Pure rules of who may do what in a circle; the service loads the rows and applies them. */

const RANK: Record<MemberRole, number> = { member: 0, maintainer: 1, owner: 2 };

export const canManage = (role: MemberRole): boolean => role === 'owner' || role === 'maintainer';

/** A manager grants at most their own role: a maintainer cannot make anyone an owner. */
export const canGrantRole = (actor: MemberRole, granted: MemberRole): boolean => canManage(actor) && RANK[granted] <= RANK[actor];

/** Owners change roles; nobody changes their own (handing over is done by promoting someone else first). */
export const canChangeRole = (actor: MemberRole, target: MemberRole, next: MemberRole, self: boolean): boolean =>
  !self && actor === 'owner' && RANK[target] <= RANK[actor] && RANK[next] <= RANK[actor];

/** Managers remove members; only owners remove maintainers or owners; leaving is how one removes oneself. */
export const canRemove = (actor: MemberRole, target: MemberRole, self: boolean): boolean =>
  !self && canManage(actor) && (actor === 'owner' || RANK[target] < RANK[actor]);

/** The last owner holds the circle: they leave only after handing over, unless nobody else is left in it. */
export const canLeave = (role: MemberRole, otherOwners: number, otherMembers: number): boolean => role !== 'owner' || otherOwners > 0 || otherMembers === 0;
