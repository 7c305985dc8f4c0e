import { Column, Entity, Index, PrimaryGeneratedColumn, JoinColumn, ManyToOne } from 'typeorm';

/**
 * An invitation by e-mail; only the SHA-256 of its random token is stored, and it can be used once. Erasing the
 * inviter's account voids it: `invited_by` becomes null, and an open one loses its pending member row (`member_id`
 * null) but stays, so that its token answers "no longer valid" rather than "no such invitation".
 */
@Entity('care_circle_invitations')
@Index('care_circle_invitations_token_hash_key', ['tokenHash'], { unique: true })
export class CircleInvitationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid', { name: 'member_id', nullable: true })
  memberId: string | null;

  @ManyToOne('CircleMemberEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'member_id', foreignKeyConstraintName: 'care_circle_invitations_member_id_fkey' })
  member?: unknown;

  @Column('text')
  email: string;

  @Column('text', { name: 'token_hash' })
  tokenHash: string;

  /** Null once the inviter's account is erased: the invitation is void. */
  @Column('uuid', { name: 'invited_by', nullable: true })
  invitedBy: string | null;

  @ManyToOne('UserEntity', { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'invited_by', foreignKeyConstraintName: 'care_circle_invitations_invited_by_fkey' })
  inviter?: unknown;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  /** Set when the token was accepted or declined; a used token never works again. */
  @Column('timestamptz', { name: 'used_at', nullable: true })
  usedAt: Date | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
