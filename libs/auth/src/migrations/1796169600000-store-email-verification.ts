import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether the stored e-mail address was verified by the token that brought it: only a verified
 * address may make its owner an admin through `ADMIN_EMAILS`, also when they call with an MCP
 * secret. Rows from before are taken as unverified until their owner's next token says otherwise.
 */
export class StoreEmailVerification1796169600000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE users DROP COLUMN email_verified');
  }
}
