import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users (keyed by issuer and subject), their MCP secrets (hashes only) and the tool-call access log. */
export class CreateAuthTables1796083200000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        issuer text NOT NULL,
        subject text NOT NULL,
        email text,
        name text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT users_issuer_subject_key UNIQUE (issuer, subject)
      )`);
    await queryRunner.query(`
      CREATE TABLE mcp_secrets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        label text NOT NULL,
        agent text,
        secret_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX mcp_secrets_secret_hash_key ON mcp_secrets (secret_hash)');
    await queryRunner.query('CREATE INDEX mcp_secrets_user_id_idx ON mcp_secrets (user_id)');
    await queryRunner.query(`
      CREATE TABLE mcp_tool_calls (
        id bigserial PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        tool text NOT NULL,
        success boolean NOT NULL,
        duration_ms integer NOT NULL,
        called_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX mcp_tool_calls_user_id_called_at_idx ON mcp_tool_calls (user_id, called_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mcp_tool_calls');
    await queryRunner.query('DROP TABLE mcp_secrets');
    await queryRunner.query('DROP TABLE users');
  }
}
