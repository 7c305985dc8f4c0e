import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tasks of the MCP tasks extension (`McpTaskEntity`). */
export class CreateMcpTasks1797200000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_tasks (
        id text NOT NULL,
        owner text NOT NULL,
        tool text NOT NULL,
        status text NOT NULL,
        status_message text,
        input_requests jsonb,
        input_responses jsonb,
        result jsonb,
        error jsonb,
        ttl_ms integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        lease_owner text,
        lease_expires_at timestamptz,
        CONSTRAINT mcp_tasks_pkey PRIMARY KEY (id),
        CONSTRAINT mcp_tasks_status_check CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled'))
      )`);
    await queryRunner.query(`CREATE INDEX mcp_tasks_owner_active_idx ON mcp_tasks (owner) WHERE status IN ('working', 'input_required')`);
    await queryRunner.query(`CREATE INDEX mcp_tasks_lease_idx ON mcp_tasks (lease_expires_at) WHERE status IN ('working', 'input_required')`);
    await queryRunner.query('CREATE INDEX mcp_tasks_expires_idx ON mcp_tasks (expires_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mcp_tasks');
  }
}
