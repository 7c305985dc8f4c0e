import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The web console's sign-ins: sessions behind its cookie, and the one-time links already used. */
export class CreateConsoleSessions1797300100000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE console_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash text NOT NULL,
        user_id uuid NOT NULL,
        roles text[] NOT NULL DEFAULT '{}',
        sign_in text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        CONSTRAINT console_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX console_sessions_token_hash_key ON console_sessions (token_hash)');
    await queryRunner.query('CREATE INDEX console_sessions_user_id_idx ON console_sessions (user_id)');
    await queryRunner.query(`
      CREATE TABLE console_link_redemptions (
        link_id text CONSTRAINT console_link_redemptions_pkey PRIMARY KEY,
        redeemed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE console_link_redemptions');
    await queryRunner.query('DROP TABLE console_sessions');
  }
}
