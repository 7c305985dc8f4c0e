import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity.js';

/** The access log: one row per `tools/call` by a known user. */
@Entity('mcp_tool_calls')
@Index('mcp_tool_calls_user_id_called_at_idx', ['userId', 'calledAt'])
@Index('mcp_tool_calls_called_at_idx', ['calledAt'])
export class ToolCallEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'mcp_tool_calls_user_id_fkey' })
  user?: UserEntity;

  @Column('text')
  tool: string;

  @Column('boolean')
  success: boolean;

  @Column('integer', { name: 'duration_ms' })
  durationMs: number;

  @Column('timestamptz', { name: 'called_at', default: () => 'now()' })
  calledAt: Date;
}
