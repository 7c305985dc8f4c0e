import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lets the purge of deleted memories find the oldest deletion without reading the table (see
 * `DeletedMemoryRetention`); live rows, the bulk of it, are left out of the index.
 */
export class IndexDeletedMemories1796326541000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX memories_deleted_at_idx ON memories (deleted_at) WHERE deleted_at IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX memories_deleted_at_idx');
  }
}
