import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';

export const MEMBER_ROLES = ['owner', 'maintainer', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const MEMBER_STATUSES = ['pending', 'accepted', 'declined'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** 0 none, 1 view, 2 edit: what the circle may do with this member's own health data; only the member sets it. */
export const HEALTH_ACCESS = { none: 0, view: 1, edit: 2 } as const;
export type HealthAccess = (typeof HEALTH_ACCESS)[keyof typeof HEALTH_ACCESS];

/**
 * One person's place in one circle. The row id is the opaque member id shown to people and models;
 * a row starts `pending` when its invitation is issued (no user yet) and gets its user on acceptance.
 */
@Entity('care_circle_members')
@Unique('care_circle_members_circle_user_key', ['circleId', 'userId'])
@Index('care_circle_members_user_idx', ['userId'])
export class CircleMemberEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid', { name: 'circle_id' })
  circleId: string;

  @ManyToOne('CareCircleEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'circle_id', foreignKeyConstraintName: 'care_circle_members_circle_id_fkey' })
  circle?: unknown;

  /** Null while the invitation is open. */
  @Column('uuid', { name: 'user_id', nullable: true })
  userId: string | null;

  @ManyToOne('UserEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'care_circle_members_user_id_fkey' })
  user?: unknown;

  @Column('text')
  role: MemberRole;

  @Column('text')
  status: MemberStatus;

  @Column('text', { nullable: true })
  nickname: string | null;

  @Column('smallint', { name: 'health_access', default: 0 })
  healthAccess: HealthAccess;

  /** The e-mail the invitation went to; kept so people can recognise the row. */
  @Column('text', { name: 'invited_email', nullable: true })
  invitedEmail: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}
