import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The built-in authorization server's clients (DCR) and its sign-ins in progress. */
export class CreateOauthServerTables1796540000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oauth_clients (
        id text CONSTRAINT oauth_clients_pkey PRIMARY KEY,
        secret_hash text,
        auth_method text NOT NULL,
        client_name text NOT NULL,
        client_uri text,
        redirect_uris jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE oauth_authorization_requests (
        id uuid CONSTRAINT oauth_authorization_requests_pkey PRIMARY KEY DEFAULT gen_random_uuid(),
        provider_state text,
        provider_code_verifier text NOT NULL,
        provider_nonce text NOT NULL,
        browser_binding_hash text NOT NULL,
        issuer text NOT NULL,
        client_id text NOT NULL,
        client_name text NOT NULL,
        client_verified boolean NOT NULL,
        redirect_uri text NOT NULL,
        state text,
        code_challenge text NOT NULL,
        scope text NOT NULL,
        resource text NOT NULL,
        user_id uuid CONSTRAINT oauth_authorization_requests_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        consent_token_hash text,
        code_hash text,
        code_expires_at timestamptz,
        code_used_at timestamptz,
        code_reused_at timestamptz,
        connection_id uuid,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX oauth_authorization_requests_provider_state_key ON oauth_authorization_requests (provider_state)');
    await queryRunner.query('CREATE UNIQUE INDEX oauth_authorization_requests_code_hash_key ON oauth_authorization_requests (code_hash)');
    await queryRunner.query('CREATE INDEX oauth_authorization_requests_expires_at_idx ON oauth_authorization_requests (expires_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE oauth_authorization_requests');
    await queryRunner.query('DROP TABLE oauth_clients');
  }
}
