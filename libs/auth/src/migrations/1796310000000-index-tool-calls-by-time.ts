import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Lets the access log's retention find expired calls without reading the whole table (see `AccessLogRetention`). */
export class IndexToolCallsByTime1796310000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX mcp_tool_calls_called_at_idx ON mcp_tool_calls (called_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX mcp_tool_calls_called_at_idx');
  }
}
