import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository, EntityManager } from 'typeorm';
import {
  ConflictError,
  cursorKey,
  decodeCursor,
  ForbiddenError,
  GoneError,
  instantKeySql,
  isUuid,
  NotFoundError,
  toPage,
  type Page,
  type UserInfo,
} from '@app/common';
import { CareCircleEntity } from '../entities/care-circle.entity.js';
import { CircleInvitationEntity } from '../entities/circle-invitation.entity.js';
import { CircleMemberEntity, type MemberRole } from '../entities/circle-member.entity.js';
import { circleView, hashToken, type CircleView } from './care-circles.service.js';

export type InvitationAnswer = 'accepted' | 'declined';

export const NO_LONGER_VALID = 'This invitation is no longer valid';
const SENDER_DISABLED = 'The account that sent this invitation is disabled: it can be answered again once an administrator enables that account';

/** An open invitation as the invited person sees it: which circle, from whom, as what. */
export interface PendingInvitationView {
  invitation_id: string;
  circle_id: string;
  circle_name: string;
  role: MemberRole;
  invited_by: { name: string | null; email: string | null };
  expires_at: string;
  created_at: string;
}

interface PendingRow {
  id: string;
  circle_id: string;
  circle_name: string;
  role: MemberRole;
  inviter_name: string | null;
  inviter_email: string | null;
  expires_at: Date;
  created_at: Date;
  /** created_at to the microsecond, as the keyset of the next page (a JS Date keeps only milliseconds). */
  created_key: string;
}

/**
 * The address an invitation may be answered by: the caller's own, and only when a token verified it. Anyone can
 * put any address in a token of their own; an unverified one proves nothing, so it is refused whatever the id.
 */
export function verifiedEmailOf(caller: UserInfo): string {
  if (!caller.email) throw new ForbiddenError('Your credentials carry no e-mail address: answer the invitation with its token');
  if (caller.emailVerified !== true) throw new ForbiddenError(`Your e-mail address ${caller.email} is not verified: answer the invitation with its token`);
  return caller.email.trim().toLowerCase();
}

/**
 * Answering invitations: the invited person proves who they are with the invitation's token, or with a verified
 * e-mail address the invitation was sent to. The person who issued an invitation never answers it.
 */
@Injectable()
export class InvitationsService {
  constructor(@InjectRepository(CircleInvitationEntity) private readonly invitations: Repository<CircleInvitationEntity>) {}

  async answerByToken(userId: string, token: string, answer: InvitationAnswer): Promise<CircleView | null> {
    return this.invitations.manager.transaction(async (manager) => {
      const invitation = await this.lockInvitation(manager)
        .where('invitation.token_hash = :hash', { hash: hashToken(token) })
        .getOne();
      if (!invitation) throw new NotFoundError('No invitation has this token');
      return this.apply(manager, userId, invitation, answer);
    });
  }

  /** An invitation sent to another address answers 404, exactly like one that does not exist. */
  async answerById(caller: UserInfo, invitationId: string, answer: InvitationAnswer): Promise<CircleView | null> {
    const email = verifiedEmailOf(caller);
    return this.invitations.manager.transaction(async (manager) => {
      const invitation = isUuid(invitationId)
        ? await this.lockInvitation(manager).where('invitation.id = :invitationId AND lower(invitation.email) = :email', { invitationId, email }).getOne()
        : null;
      if (!invitation) throw new NotFoundError(`No invitation ${invitationId} for ${email}`);
      return this.apply(manager, caller.userId, invitation, answer);
    });
  }

  /**
   * Open invitations to the caller's verified address, newest first: not ones they issued themselves, nor void
   * ones (the sender's account erased), nor, while it lasts, those of a sender whose account is disabled.
   */
  async pendingFor(caller: UserInfo, limit: number, cursor?: string): Promise<Page<PendingInvitationView>> {
    const email = verifiedEmailOf(caller);
    const params: unknown[] = [email, caller.userId, limit + 1];
    let after = '';
    if (cursor) {
      params.push(...decodeCursor(cursor, KEYSET));
      after = 'AND (i.created_at, i.id) < ($4::timestamptz, $5::uuid)';
    }
    const rows: PendingRow[] = await this.invitations.query(
      `SELECT i.id, c.id AS circle_id, c.name AS circle_name, m.role, u.name AS inviter_name, u.email AS inviter_email, i.expires_at, i.created_at,
              ${instantKeySql('i.created_at')} AS created_key
         FROM care_circle_invitations i
         JOIN care_circle_members m ON m.id = i.member_id
         JOIN care_circles c ON c.id = m.circle_id
         JOIN users u ON u.id = i.invited_by AND u.disabled_at IS NULL
        WHERE lower(i.email) = $1 AND i.invited_by <> $2 AND i.used_at IS NULL AND i.expires_at > now() ${after}
        ORDER BY i.created_at DESC, i.id DESC
        LIMIT $3`,
      params,
    );
    return toPage(rows, limit, KEYSET, (row) => [row.created_key, row.id], pendingView);
  }

  private lockInvitation(manager: EntityManager) {
    return manager.getRepository(CircleInvitationEntity).createQueryBuilder('invitation').setLock('pessimistic_write');
  }

  /** Both proofs and both answers come here: whether the invitation can be answered at all is decided in this one place. */
  private async apply(manager: EntityManager, userId: string, invitation: CircleInvitationEntity, answer: InvitationAnswer): Promise<CircleView | null> {
    const { memberId, invitedBy } = invitation;
    if (invitation.usedAt) throw new ConflictError('This invitation has already been used');
    // Its sender's account was erased: nobody is left to answer for whom it lets in.
    if (invitedBy === null || memberId === null) throw new GoneError(NO_LONGER_VALID);
    if (invitation.expiresAt.getTime() <= Date.now()) throw new ConflictError('This invitation has expired; ask for a new one');
    if (invitedBy === userId) throw new ForbiddenError('You cannot answer an invitation you issued yourself');
    if (await isDisabled(manager, invitedBy)) throw new ForbiddenError(SENDER_DISABLED);
    const member = await manager.getRepository(CircleMemberEntity).findOneByOrFail({ id: memberId });
    const existing = await manager.getRepository(CircleMemberEntity).findOneBy({ circleId: member.circleId, userId });
    await manager.update(CircleInvitationEntity, { id: invitation.id }, { usedAt: new Date() });
    if (existing?.status === 'accepted') {
      if (answer === 'accepted') throw new ConflictError('You are already in this circle');
      // Declining an invitation to a circle one is already in: the invitation is simply used up.
      await manager.delete(CircleMemberEntity, { id: member.id });
      return null;
    }
    // A membership withdrawn earlier gives way to the answer to this new invitation.
    if (existing) await manager.delete(CircleMemberEntity, { id: existing.id });
    await manager.update(CircleMemberEntity, { id: member.id }, { userId, status: answer, updatedAt: () => 'now()' });
    if (answer === 'declined') return null;
    const circle = await manager.getRepository(CareCircleEntity).findOneByOrFail({ id: member.circleId });
    return circleView(circle, member);
  }
}

/** Newest first: the creation time to the microsecond (`created_key`), then the id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;

const pendingView = (row: PendingRow): PendingInvitationView => ({
  invitation_id: row.id,
  circle_id: row.circle_id,
  circle_name: row.circle_name,
  role: row.role,
  invited_by: { name: row.inviter_name, email: row.inviter_email },
  expires_at: new Date(row.expires_at).toISOString(),
  created_at: new Date(row.created_at).toISOString(),
});

/** Read fresh, not from the few seconds' cache of sign-ins: an admin's enable counts for the very next answer. */
async function isDisabled(manager: EntityManager, userId: string): Promise<boolean> {
  const [row]: { disabled: boolean }[] = await manager.query('SELECT disabled_at IS NOT NULL AS disabled FROM users WHERE id = $1', [userId]);
  return row?.disabled === true;
}
