import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Conversation titles per user, listed newest first. */
export class CreateConversations1796094670000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE conversations (
        user_id uuid NOT NULL,
        id text NOT NULL,
        title text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT conversations_pkey PRIMARY KEY (user_id, id),
        CONSTRAINT conversations_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
      )`);
    await queryRunner.query('CREATE INDEX conversations_user_updated_idx ON conversations (user_id, updated_at, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE conversations');
  }
}
