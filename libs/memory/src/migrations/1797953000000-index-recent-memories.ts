import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each user's live memories, newest first. Recall and `remember`'s related memories read a user's
 * newest memories before the full-text index (see `retrieval-sql.ts`), and the lists page through
 * them. `memories_user_live_created_idx` cannot serve either: `deleted_at IS NULL` is not an
 * equality to the planner, so it read and sorted all of a user's live rows to find the newest
 * (a list's first page at 50,000 memories of one user: 23 ms; with this index, 0.04 ms).
 */
export class IndexRecentMemories1797953000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX memories_user_recent_idx ON memories (user_id, created_at, id) WHERE deleted_at IS NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX memories_user_recent_idx');
  }
}
