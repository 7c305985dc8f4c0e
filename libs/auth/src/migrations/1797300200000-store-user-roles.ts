import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The roles a user's latest token or sign-in carried, for the admin area's list of users. */
export class StoreUserRoles1797300200000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE users ADD COLUMN roles text[] NOT NULL DEFAULT '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE users DROP COLUMN roles');
  }
}
