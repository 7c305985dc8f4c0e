import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The address each admin action came from. A nullable column and nothing else: an instance of the
 * previous release, still serving beside this one during a rolling upgrade, inserts without it.
 */
export class RecordAdminAddresses1797700000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE admin_audit ADD COLUMN actor_address text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE admin_audit DROP COLUMN actor_address');
  }
}
