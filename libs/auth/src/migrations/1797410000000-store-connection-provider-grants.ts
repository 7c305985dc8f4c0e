import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a connection holds of its identity provider: the roles it vouched for at the latest sign-in or
 * refresh, its refresh token (sealed) to ask it again, and, for a connection the provider granted
 * (an ID-JAG), that provider's issuer.
 */
export class StoreConnectionProviderGrants1797410000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE oauth_connections
        ADD COLUMN roles text[] NOT NULL DEFAULT '{}',
        ADD COLUMN provider_refresh_token text,
        ADD COLUMN assertion_issuer text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE oauth_connections DROP COLUMN roles, DROP COLUMN provider_refresh_token, DROP COLUMN assertion_issuer');
  }
}
