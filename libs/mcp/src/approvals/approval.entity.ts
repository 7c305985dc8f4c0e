import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { UserInfo } from '@app/common';

export type ApprovalStatus = 'pending' | 'approved' | 'declined' | 'expired' | 'cancelled';
/** How an approved call's run ended: its result, a tool error, a failure of the server's, or refused before it ran (its caller may no longer act). */
export type RunOutcome = 'ok' | 'tool_error' | 'internal_error' | 'refused';

export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'declined', 'expired', 'cancelled'];
export const RUN_OUTCOMES: readonly RunOutcome[] = ['ok', 'tool_error', 'internal_error', 'refused'];

/** The caller as the call made them, to run it as them once approved: never their credential itself. */
export type CallerSnapshot = Omit<UserInfo, 'userId' | 'sessionId'>;

/**
 * A call of a tool that waits for an approver: who asked, which tool, the arguments (sealed, and
 * only while it waits; a decided request keeps their digest), and what became of it. Every change
 * of status is one conditional statement (`ApprovalStore`): one decision wins, however many
 * approvers and instances try.
 */
@Entity('mcp_approvals')
@Check('mcp_approvals_status_check', `status IN ('pending', 'approved', 'declined', 'expired', 'cancelled')`)
@Check('mcp_approvals_outcome_check', `outcome IN ('ok', 'tool_error', 'internal_error', 'refused')`)
@Check('mcp_approvals_sealed_check', `(status = 'pending') = (sealed_arguments IS NOT NULL)`)
// The approvers' queue, oldest first, and the sweep of requests past their time.
@Index('mcp_approvals_pending_idx', ['expiresAt', 'id'], { where: "status = 'pending'" })
// The REST lists, newest first: a user's own, and everyone's.
@Index('mcp_approvals_user_requested_idx', ['userId', 'requestedAt', 'id'])
@Index('mcp_approvals_requested_idx', ['requestedAt', 'id'])
// The approved calls not yet run, which the sweep looks over every second.
@Index('mcp_approvals_unrun_idx', ['id'], { where: "status = 'approved' AND ran_at IS NULL" })
@Index('mcp_approvals_webhook_due_idx', ['webhookDueAt'], { where: 'webhook_due_at IS NOT NULL' })
export class McpApprovalEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'mcp_approvals_pkey' })
  id: string;

  @Column('text')
  tool: string;

  /** Who asked; kept without a foreign key (mcp sits below the users' lib): erasing a user deletes their requests (`ApprovalsUserData`). */
  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Column('jsonb')
  caller: CallerSnapshot;

  @Column('text')
  status: ApprovalStatus;

  /** The arguments, sealed (`ArgumentsSealer`), while the request is pending; null once it is decided. */
  @Column('text', { name: 'sealed_arguments', nullable: true })
  sealedArguments: string | null;

  @Column('text', { name: 'arguments_digest' })
  argumentsDigest: string;

  /** The task the call waits in (the tasks extension); null for a call that was answered with the request's id. */
  @Column('text', { name: 'task_id', nullable: true })
  taskId: string | null;

  @Column('timestamptz', { name: 'requested_at' })
  requestedAt: Date;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  @Column('timestamptz', { name: 'decided_at', nullable: true })
  decidedAt: Date | null;

  /** The approver; null while pending, and for a request the server ended (expired, withdrawn, its asker disabled). */
  @Column('uuid', { name: 'decided_by', nullable: true })
  decidedBy: string | null;

  @Column('text', { name: 'decided_by_email', nullable: true })
  decidedByEmail: string | null;

  @Column('text', { nullable: true })
  reason: string | null;

  @Column('timestamptz', { name: 'ran_at', nullable: true })
  ranAt: Date | null;

  @Column('text', { nullable: true })
  outcome: RunOutcome | null;

  /** A tool error's message (cut short), or why the run was refused. */
  @Column('text', { name: 'outcome_message', nullable: true })
  outcomeMessage: string | null;

  /** When the webhook is next to be sent; null once delivered, given up, or without a webhook. */
  @Column('timestamptz', { name: 'webhook_due_at', nullable: true })
  webhookDueAt: Date | null;

  @Column('integer', { name: 'webhook_attempts', default: 0 })
  webhookAttempts: number;
}
