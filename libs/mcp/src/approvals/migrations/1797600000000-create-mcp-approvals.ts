import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Calls of tools that wait for an approver (`McpApprovalEntity`). */
export class CreateMcpApprovals1797600000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_approvals (
        id uuid NOT NULL,
        tool text NOT NULL,
        user_id uuid NOT NULL,
        caller jsonb NOT NULL,
        status text NOT NULL,
        sealed_arguments text,
        arguments_digest text NOT NULL,
        task_id text,
        requested_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        decided_at timestamptz,
        decided_by uuid,
        decided_by_email text,
        reason text,
        ran_at timestamptz,
        outcome text,
        outcome_message text,
        webhook_due_at timestamptz,
        webhook_attempts integer NOT NULL DEFAULT 0,
        CONSTRAINT mcp_approvals_pkey PRIMARY KEY (id),
        CONSTRAINT mcp_approvals_status_check CHECK (status IN ('pending', 'approved', 'declined', 'expired', 'cancelled')),
        CONSTRAINT mcp_approvals_outcome_check CHECK (outcome IN ('ok', 'tool_error', 'internal_error', 'refused')),
        CONSTRAINT mcp_approvals_sealed_check CHECK ((status = 'pending') = (sealed_arguments IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX mcp_approvals_pending_idx ON mcp_approvals (expires_at, id) WHERE status = 'pending'`);
    await queryRunner.query('CREATE INDEX mcp_approvals_user_requested_idx ON mcp_approvals (user_id, requested_at, id)');
    await queryRunner.query('CREATE INDEX mcp_approvals_requested_idx ON mcp_approvals (requested_at, id)');
    await queryRunner.query(`CREATE INDEX mcp_approvals_unrun_idx ON mcp_approvals (id) WHERE status = 'approved' AND ran_at IS NULL`);
    await queryRunner.query('CREATE INDEX mcp_approvals_webhook_due_idx ON mcp_approvals (webhook_due_at) WHERE webhook_due_at IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mcp_approvals');
  }
}
