import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** The access log: one row per `tools/call` by a known user. */
@Entity('mcp_tool_calls')
@Index('mcp_tool_calls_user_id_called_at_idx', ['userId', 'calledAt'])
export class ToolCallEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Column('text')
  tool: string;

  @Column('boolean')
  success: boolean;

  @Column('integer', { name: 'duration_ms' })
  durationMs: number;

  @Column('timestamptz', { name: 'called_at', default: () => 'now()' })
  calledAt: Date;
}
