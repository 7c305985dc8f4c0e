import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The built-in authorization server's grants: a user's connected clients and their refresh tokens, by hash. */
export class CreateOauthConnections1796450062000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oauth_connections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        client_id text NOT NULL,
        client_name text NOT NULL,
        client_verified boolean NOT NULL,
        scope text NOT NULL,
        resource text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await queryRunner.query('CREATE INDEX oauth_connections_user_id_idx ON oauth_connections (user_id)');
    await queryRunner.query(`
      CREATE TABLE oauth_refresh_tokens (
        token_hash text CONSTRAINT oauth_refresh_tokens_pkey PRIMARY KEY,
        connection_id uuid NOT NULL REFERENCES oauth_connections (id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await queryRunner.query('CREATE INDEX oauth_refresh_tokens_connection_id_idx ON oauth_refresh_tokens (connection_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE oauth_refresh_tokens');
    await queryRunner.query('DROP TABLE oauth_connections');
  }
}
