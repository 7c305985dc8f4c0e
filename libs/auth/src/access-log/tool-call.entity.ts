import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity.js';

/** The access log: one row per `tools/call` by a known user. */
@Entity('mcp_tool_calls')
@Index('mcp_tool_calls_user_id_called_at_idx', ['userId', 'calledAt'])
@Index('mcp_tool_calls_called_at_idx', ['calledAt'])
// The overview's recent errors, newest first, without reading the successes in between.
@Index('mcp_tool_calls_errors_idx', ['calledAt'], { where: 'NOT success' })
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

  /** The HTTP request's id (the `X-Request-Id` answered), under which the log holds what went wrong. */
  @Column('text', { name: 'request_id', nullable: true })
  requestId: string | null;

  /** Why a failed call failed: the tool error's message, or `Internal error` for a failure of the server's; null for a success. */
  @Column('text', { nullable: true })
  error: string | null;
}
