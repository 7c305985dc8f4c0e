import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The REST lists of tasks, newest first: a user's own and everyone's (`McpTaskQueries`). */
export class IndexMcpTasksByTime1797400300000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX mcp_tasks_owner_created_idx ON mcp_tasks (owner, created_at, id)');
    await queryRunner.query('CREATE INDEX mcp_tasks_created_idx ON mcp_tasks (created_at, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX mcp_tasks_created_idx');
    await queryRunner.query('DROP INDEX mcp_tasks_owner_created_idx');
  }
}
