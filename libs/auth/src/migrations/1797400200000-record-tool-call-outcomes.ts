import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The access log keeps each call's request id and, for a failed call, why (`ToolCallEntity`), and
 * finds the latest failures by an index of their own (the admin overview's recent errors).
 */
export class RecordToolCallOutcomes1797400200000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_tool_calls ADD COLUMN request_id text, ADD COLUMN error text');
    await queryRunner.query('CREATE INDEX mcp_tool_calls_errors_idx ON mcp_tool_calls (called_at) WHERE NOT success');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX mcp_tool_calls_errors_idx');
    await queryRunner.query('ALTER TABLE mcp_tool_calls DROP COLUMN error, DROP COLUMN request_id');
  }
}
