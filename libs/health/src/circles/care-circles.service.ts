import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository, EntityManager } from 'typeorm';
import { ConflictError, ForbiddenError, isUuid, NotFoundError } from '@app/common';
import { CareCircleEntity } from '../entities/care-circle.entity.js';
import { CircleInvitationEntity } from '../entities/circle-invitation.entity.js';
import { CircleMemberEntity, type HealthAccess, type MemberRole } from '../entities/circle-member.entity.js';
import { canChangeRole, canGrantRole, canLeave, canManage, canRemove } from './circle-rules.js';
import { shadowedBy, type CircleNames } from './member-resolution.js';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface CircleView {
  id: string;
  name: string;
  my_role: MemberRole;
  my_member_id: string;
  created_at: string;
}

export interface MemberView {
  member_id: string;
  name: string | null;
  email: string | null;
  nickname: string | null;
  role: MemberRole;
  status: CircleMemberEntity['status'];
  health_access: HealthAccess;
}

export interface IssuedInvitation {
  member_id: string;
  email: string;
  role: MemberRole;
  /** Shown once: only its hash is stored. The inviter passes it on (e-mail, message). */
  token: string;
  expires_at: string;
}

export interface MembershipChange {
  nickname?: string | null;
  health_access?: HealthAccess;
  status?: 'declined';
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Care circles and who is in them. Every method starts from the caller's own accepted membership, so a circle
 * the caller is not in answers 404 exactly like one that does not exist.
 */
@Injectable()
export class CareCirclesService {
  constructor(
    @InjectRepository(CircleMemberEntity) private readonly memberRows: Repository<CircleMemberEntity>,
    @InjectRepository(CareCircleEntity) private readonly circles: Repository<CareCircleEntity>,
  ) {}

  async create(userId: string, name: string): Promise<CircleView> {
    return this.memberRows.manager.transaction(async (manager) => {
      const circle = await manager.save(manager.create(CareCircleEntity, { name, createdBy: userId }));
      const owner = await manager.save(manager.create(CircleMemberEntity, { circleId: circle.id, userId, role: 'owner', status: 'accepted' }));
      return circleView(circle, owner);
    });
  }

  async list(userId: string): Promise<CircleView[]> {
    const memberships = await this.memberRows.find({ where: { userId, status: 'accepted' }, order: { createdAt: 'ASC' } });
    if (memberships.length === 0) return [];
    const circles = await this.memberRows.manager
      .getRepository(CareCircleEntity)
      .createQueryBuilder('circle')
      .where('circle.id IN (:...ids)', { ids: memberships.map((member) => member.circleId) })
      .getMany();
    const byId = new Map(circles.map((circle) => [circle.id, circle]));
    return memberships.map((member) => circleView(byId.get(member.circleId)!, member));
  }

  async rename(userId: string, circleId: string, name: string): Promise<CircleView> {
    const me = await this.requireManager(this.memberRows.manager, userId, circleId);
    await this.circles.update({ id: circleId }, { name });
    return circleView(await this.circles.findOneByOrFail({ id: circleId }), me);
  }

  async remove(userId: string, circleId: string): Promise<void> {
    const me = await this.requireMembership(this.memberRows.manager, userId, circleId);
    if (me.role !== 'owner') throw new ForbiddenError('Only an owner of the circle can delete it');
    await this.circles.delete({ id: circleId });
  }

  async invite(userId: string, circleId: string, email: string, role: MemberRole): Promise<IssuedInvitation> {
    return this.memberRows.manager.transaction(async (manager) => {
      const me = await this.requireManager(manager, userId, circleId);
      if (!canGrantRole(me.role, role)) throw new ForbiddenError(`A ${me.role} cannot invite someone as ${role}`);
      const normalized = email.trim().toLowerCase();
      const alreadyIn = await manager.query(
        `SELECT 1 FROM care_circle_members m LEFT JOIN users u ON u.id = m.user_id
          WHERE m.circle_id = $1 AND m.status <> 'declined' AND (lower(u.email) = $2 OR (m.user_id IS NULL AND m.invited_email = $2))`,
        [circleId, normalized],
      );
      if (alreadyIn.length > 0) throw new ConflictError(`${normalized} is already in this circle or invited to it`);
      const member = await manager.save(manager.create(CircleMemberEntity, { circleId, userId: null, role, status: 'pending', invitedEmail: normalized }));
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Date.now() + INVITATION_TTL_MS);
      await manager.save(
        manager.create(CircleInvitationEntity, { memberId: member.id, email: normalized, tokenHash: hashToken(token), invitedBy: userId, expiresAt }),
      );
      return { member_id: member.id, email: normalized, role, token, expires_at: expiresAt.toISOString() };
    });
  }

  async members(userId: string, circleId: string): Promise<MemberView[]> {
    await this.requireMembership(this.memberRows.manager, userId, circleId);
    const rows: MemberRow[] = await this.memberRows.query(
      `SELECT m.id, m.role, m.status, m.nickname, m.health_access, m.invited_email, u.name, u.email
         FROM care_circle_members m LEFT JOIN users u ON u.id = m.user_id
        WHERE m.circle_id = $1 ORDER BY m.created_at, m.id`,
      [circleId],
    );
    return rows.map(memberView);
  }

  /** Nickname, health access and withdrawing: each member sets these for themselves only. */
  async updateMine(userId: string, circleId: string, change: MembershipChange): Promise<MemberView> {
    const me = await this.requireMembership(this.memberRows.manager, userId, circleId);
    if (change.status === 'declined') {
      const others = await this.otherCounts(this.memberRows.manager, circleId, userId);
      if (!canLeave(me.role, others.owners, others.members)) throw new ConflictError('You are the last owner: make another member an owner first');
      // Withdrawn but listed, the circle would be left with nobody to manage it.
      if (others.members === 0) throw new ConflictError('You are the only member: leave the circle (which deletes it) instead');
    }
    const nickname = change.nickname?.trim();
    if (nickname) await this.refuseShadowing(circleId, me.id, nickname);
    await this.memberRows.update(
      { id: me.id },
      {
        ...(change.nickname !== undefined ? { nickname: nickname || null } : {}),
        ...(change.health_access !== undefined ? { healthAccess: change.health_access } : {}),
        ...(change.status ? { status: change.status } : {}),
        updatedAt: () => 'now()',
      },
    );
    return this.memberById(me.id);
  }

  async changeRole(userId: string, circleId: string, memberId: string, role: MemberRole): Promise<MemberView> {
    const me = await this.requireMembership(this.memberRows.manager, userId, circleId);
    const target = await this.requireMember(circleId, memberId);
    if (!canChangeRole(me.role, target.role, role, target.id === me.id)) {
      throw new ForbiddenError(target.id === me.id ? 'You cannot change your own role' : `A ${me.role} cannot make a ${target.role} a ${role}`);
    }
    await this.memberRows.update({ id: target.id }, { role, updatedAt: () => 'now()' });
    return this.memberById(target.id);
  }

  async removeMember(userId: string, circleId: string, memberId: string): Promise<void> {
    const me = await this.requireMembership(this.memberRows.manager, userId, circleId);
    const target = await this.requireMember(circleId, memberId);
    if (target.id === me.id) throw new ForbiddenError('Leave the circle instead of removing yourself');
    if (!canRemove(me.role, target.role, false)) throw new ForbiddenError(`A ${me.role} cannot remove a ${target.role}`);
    await this.memberRows.delete({ id: target.id });
  }

  /** Leaving deletes one's membership; the last person to leave takes the circle with them. */
  async leave(userId: string, circleId: string): Promise<void> {
    await this.memberRows.manager.transaction(async (manager) => {
      const me = await this.requireMembership(manager, userId, circleId);
      const others = await this.otherCounts(manager, circleId, userId);
      if (!canLeave(me.role, others.owners, others.members)) throw new ConflictError('You are the last owner: make another member an owner first');
      if (others.members === 0) await manager.delete(CareCircleEntity, { id: circleId });
      else await manager.delete(CircleMemberEntity, { id: me.id });
    });
  }

  /** A nickname is how the circle calls oneself, never how it knows someone else (see `shadowedBy`). */
  private async refuseShadowing(circleId: string, myMemberId: string, nickname: string): Promise<void> {
    const others: CircleNames[] = await this.memberRows.query(
      `SELECT m.id AS "memberId", u.name, u.email, m.invited_email AS "invitedEmail", m.nickname
         FROM care_circle_members m LEFT JOIN users u ON u.id = m.user_id
        WHERE m.circle_id = $1 AND m.id <> $2`,
      [circleId, myMemberId],
    );
    const clash = shadowedBy(nickname, others);
    if (clash)
      throw new ConflictError(`nickname: "${nickname}" is the ${clash.what} of another member of this circle (member id ${clash.memberId}); choose another`);
  }

  private async otherCounts(manager: EntityManager, circleId: string, userId: string): Promise<{ owners: number; members: number }> {
    const [row] = await manager.query(
      `SELECT count(*) FILTER (WHERE role = 'owner')::int AS owners, count(*)::int AS members
         FROM care_circle_members WHERE circle_id = $1 AND status = 'accepted' AND user_id <> $2`,
      [circleId, userId],
    );
    return row as { owners: number; members: number };
  }

  private async requireMembership(manager: EntityManager, userId: string, circleId: string): Promise<CircleMemberEntity> {
    const me = isUuid(circleId) ? await manager.getRepository(CircleMemberEntity).findOneBy({ circleId, userId, status: 'accepted' }) : null;
    if (!me) throw new NotFoundError(`No care circle ${circleId}`);
    return me;
  }

  private async requireManager(manager: EntityManager, userId: string, circleId: string): Promise<CircleMemberEntity> {
    const me = await this.requireMembership(manager, userId, circleId);
    if (!canManage(me.role)) throw new ForbiddenError('Only owners and maintainers manage this circle');
    return me;
  }

  private async requireMember(circleId: string, memberId: string): Promise<CircleMemberEntity> {
    const member = isUuid(memberId) ? await this.memberRows.findOneBy({ circleId, id: memberId }) : null;
    if (!member) throw new NotFoundError(`No member ${memberId} in this circle`);
    return member;
  }

  private async memberById(memberId: string): Promise<MemberView> {
    const [row]: MemberRow[] = await this.memberRows.query(
      `SELECT m.id, m.role, m.status, m.nickname, m.health_access, m.invited_email, u.name, u.email
         FROM care_circle_members m LEFT JOIN users u ON u.id = m.user_id WHERE m.id = $1`,
      [memberId],
    );
    return memberView(row!);
  }
}

interface MemberRow {
  id: string;
  role: MemberRole;
  status: CircleMemberEntity['status'];
  nickname: string | null;
  health_access: HealthAccess;
  invited_email: string | null;
  name: string | null;
  email: string | null;
}

const memberView = (row: MemberRow): MemberView => ({
  member_id: row.id,
  name: row.name,
  email: row.email ?? row.invited_email,
  nickname: row.nickname,
  role: row.role,
  status: row.status,
  health_access: row.health_access,
});

export const circleView = (circle: CareCircleEntity, me: Pick<CircleMemberEntity, 'id' | 'role'>): CircleView => ({
  id: circle.id,
  name: circle.name,
  my_role: me.role,
  my_member_id: me.id,
  created_at: circle.createdAt.toISOString(),
});
