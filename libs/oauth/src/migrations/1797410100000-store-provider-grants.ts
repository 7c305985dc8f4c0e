import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A sign-in keeps what its identity provider vouched for (roles, and its refresh token, sealed)
 * until the code hands them to the connection; identity assertion grants (ID-JAG) already used
 * are remembered by issuer and `jti`, so none is taken twice on any instance.
 */
export class StoreProviderGrants1797410100000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE oauth_authorization_requests
        ADD COLUMN roles text[] NOT NULL DEFAULT '{}',
        ADD COLUMN provider_refresh_token text`);
    await queryRunner.query(`
      CREATE TABLE oauth_used_assertions (
        issuer text NOT NULL,
        jti text NOT NULL,
        expires_at timestamptz NOT NULL,
        CONSTRAINT oauth_used_assertions_pkey PRIMARY KEY (issuer, jti)
      )`);
    await queryRunner.query('CREATE INDEX oauth_used_assertions_expires_at_idx ON oauth_used_assertions (expires_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE oauth_used_assertions');
    await queryRunner.query('ALTER TABLE oauth_authorization_requests DROP COLUMN roles, DROP COLUMN provider_refresh_token');
  }
}
