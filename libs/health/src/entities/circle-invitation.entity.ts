import { Column, Entity, Index, PrimaryGeneratedColumn, JoinColumn, ManyToOne } from 'typeorm';

/** An invitation by e-mail; only the SHA-256 of its random token is stored, and it can be used once. */
@Entity('care_circle_invitations')
@Index('care_circle_invitations_token_hash_key', ['tokenHash'], { unique: true })
export class CircleInvitationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid', { name: 'member_id' })
  memberId: string;

  @ManyToOne('CircleMemberEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'member_id', foreignKeyConstraintName: 'care_circle_invitations_member_id_fkey' })
  member?: unknown;

  @Column('text')
  email: string;

  @Column('text', { name: 'token_hash' })
  tokenHash: string;

  @Column('uuid', { name: 'invited_by' })
  invitedBy: string;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  /** Set when the token was accepted or declined; a used token never works again. */
  @Column('timestamptz', { name: 'used_at', nullable: true })
  usedAt: Date | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
