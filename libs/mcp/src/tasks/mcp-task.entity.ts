import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { TaskStatus } from './task-wire.js';

/**
 * A task of the MCP tasks extension: a tool call answered with an id, whose result is read later.
 * Its `owner` is the caller's key (`user:<id>`, or `anonymous`): no one else gets, cancels or
 * answers it. While it runs, the instance running it holds a lease it keeps renewing; a lease that
 * ran out means that instance died, and the task ends `failed`.
 */
@Entity('mcp_tasks')
@Check('mcp_tasks_status_check', `status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')`)
@Index('mcp_tasks_owner_active_idx', ['owner'], { where: "status IN ('working', 'input_required')" })
@Index('mcp_tasks_lease_idx', ['leaseExpiresAt'], { where: "status IN ('working', 'input_required')" })
@Index('mcp_tasks_expires_idx', ['expiresAt'])
// The REST lists, newest first: a user's own, and everyone's (`McpTaskQueries`).
@Index('mcp_tasks_owner_created_idx', ['owner', 'createdAt', 'id'])
@Index('mcp_tasks_created_idx', ['createdAt', 'id'])
export class McpTaskEntity {
  /** 32 random bytes, base64url: the id is unguessable, since anonymous tasks have no other key. */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'mcp_tasks_pkey' })
  id: string;

  @Column('text')
  owner: string;

  @Column('text')
  tool: string;

  @Column('text')
  status: TaskStatus;

  @Column('text', { name: 'status_message', nullable: true })
  statusMessage: string | null;

  /** The pending requests for client input, keyed by the ids the client answers them with. */
  @Column('jsonb', { name: 'input_requests', nullable: true })
  inputRequests: Record<string, unknown> | null;

  /** Answers delivered by `tasks/update`, until the waiting tool takes them. */
  @Column('jsonb', { name: 'input_responses', nullable: true })
  inputResponses: Record<string, unknown> | null;

  @Column('jsonb', { nullable: true })
  result: Record<string, unknown> | null;

  @Column('jsonb', { nullable: true })
  error: { code: number; message: string; data?: unknown } | null;

  @Column('integer', { name: 'ttl_ms' })
  ttlMs: number;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  /** The instance running the task, while it runs. */
  @Column('text', { name: 'lease_owner', nullable: true })
  leaseOwner: string | null;

  @Column('timestamptz', { name: 'lease_expires_at', nullable: true })
  leaseExpiresAt: Date | null;
}
