import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Uploaded files: owner, display name, type, digest, where the bytes are, and their extracted text. */
export class CreateFiles1796094447000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE files (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        file_key text NOT NULL,
        filename text NOT NULL,
        mime text NOT NULL,
        size bigint NOT NULL,
        sha256 text NOT NULL,
        storage_backend text NOT NULL,
        object_key text NOT NULL,
        extraction_status text NOT NULL DEFAULT 'pending',
        extracted_text text,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX files_file_key_key ON files (file_key)');
    await queryRunner.query('CREATE INDEX files_user_created_idx ON files (user_id, created_at, id)');
    await queryRunner.query('CREATE INDEX files_user_filename_idx ON files (user_id, filename, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE files');
  }
}
