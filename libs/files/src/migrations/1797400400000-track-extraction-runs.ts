import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Text extraction can be run again (`ExtractionRuns`), one run per file at a time: each run's claim
 * is dated. The admin list of every user's files is read newest first, by extraction state too.
 */
export class TrackExtractionRuns1797400400000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE files ADD COLUMN extraction_started_at timestamptz');
    await queryRunner.query('CREATE INDEX files_created_idx ON files (created_at, id)');
    await queryRunner.query(
      `CREATE INDEX files_extraction_unfinished_idx ON files (created_at, id) WHERE extraction_status = 'pending' OR extraction_status LIKE 'failed:%'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX files_extraction_unfinished_idx');
    await queryRunner.query('DROP INDEX files_created_idx');
    await queryRunner.query('ALTER TABLE files DROP COLUMN extraction_started_at');
  }
}
