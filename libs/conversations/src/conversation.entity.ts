import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

/** A conversation of one user, known by the id their client uses (X-Conversation-Id, else the MCP session id). */
@Entity('conversations')
@Index('conversations_user_updated_idx', ['userId', 'updatedAt', 'id'])
export class ConversationEntity {
  @PrimaryColumn('uuid', { name: 'user_id', primaryKeyConstraintName: 'conversations_pkey' })
  userId: string;

  @ManyToOne('UserEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'conversations_user_id_fkey' })
  user?: unknown;

  /** The client's id for the conversation: opaque text, unique per user only. */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'conversations_pkey' })
  id: string;

  @Column('text')
  title: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}
