import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One admin action: who, what, on whom, when. Never updated nor deleted by the server. */
@Entity('admin_audit')
@Index('admin_audit_target_user_id_idx', ['targetUserId'])
@Index('admin_audit_actor_id_idx', ['actorId', 'id'])
@Index('admin_audit_at_idx', ['at'])
export class AdminAuditEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('uuid', { name: 'actor_id' })
  actorId: string;

  @Column('text', { name: 'actor_email', nullable: true })
  actorEmail: string | null;

  /** The address the admin's request came from (through the proxies TRUST_PROXY trusts); null on entries older than the column. */
  @Column('text', { name: 'actor_address', nullable: true })
  actorAddress: string | null;

  /** e.g. `user.disable`, `user.erase`: an area, a dot, a verb (the `action` filter's `memories.*` takes an area). */
  @Column('text')
  action: string;

  @Column('uuid', { name: 'target_user_id', nullable: true })
  targetUserId: string | null;

  @Column('jsonb', { nullable: true })
  detail: Record<string, unknown> | null;

  @Column('timestamptz', { default: () => 'now()' })
  at: Date;
}
