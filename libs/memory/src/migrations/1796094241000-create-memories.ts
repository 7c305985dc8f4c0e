import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The full-text vector's expression, as the entity declares it (TypeORM compares the two through `typeorm_metadata`). */
export const SEARCH_VECTOR_EXPRESSION = `to_tsvector('english'::regconfig, search_text)`;

/**
 * Memories, their lexical indexes and, where pgvector exists, their vectors.
 *
 * - `memories_user_live_created_idx` serves the lists (newest first, keyset) and the per-user count,
 *   index-only, since live rows are the `deleted_at IS NULL` range of each user.
 * - `memories_user_dedupe_key` makes "one live memory per normalized text and user" a database
 *   rule (md5: the key may be longer than a btree entry allows).
 * - a GIN index on (user, full-text vector) (btree_gin): a word common across all users is looked
 *   up only among the caller's rows, without first collecting every row of the caller.
 * - `memory_words`, each user's vocabulary (every word of three letters or more they ever stored),
 *   with a GIN index on (user, trigrams of the word): a misspelt query word is corrected against
 *   the user's few thousand words instead of comparing trigrams with every row (measured: that
 *   took 100+ ms at 100k memories per user, this takes about one). Not an entity: TypeORM cannot
 *   describe the index, and the store reads it with SQL.
 * - `memory_embeddings` is a table of its own, created only where pgvector is available (the
 *   PostgreSQL 15 of some hosts has none), and kept out of the entities so that both databases
 *   have the same entity schema. Its HNSW index depends on the configured dimensions and is
 *   created by the store at start-up.
 */
export class CreateMemories1796094241000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS btree_gin');
    await queryRunner.query(`
      CREATE TABLE memories (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL,
        kind text NOT NULL,
        text text NOT NULL,
        dedupe_key text NOT NULL,
        search_text text NOT NULL,
        search_vector tsvector GENERATED ALWAYS AS (${SEARCH_VECTOR_EXPRESSION}) STORED,
        source text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        CONSTRAINT memories_kind_check CHECK (kind IN ('fact', 'preference', 'episode'))
      )`);
    // What TypeORM's schema builder reads to know the generated column's expression.
    await queryRunner.query(`
      CREATE TABLE IF NOT EXISTS typeorm_metadata (
        "type" varchar NOT NULL, "database" varchar, "schema" varchar, "table" varchar, "name" varchar, "value" text
      )`);
    await queryRunner.query(
      `INSERT INTO typeorm_metadata ("type", "database", "schema", "table", "name", "value")
       VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'memories', 'search_vector', $1)`,
      [SEARCH_VECTOR_EXPRESSION],
    );
    await queryRunner.query('CREATE INDEX memories_user_live_created_idx ON memories (user_id, deleted_at, created_at, id)');
    await queryRunner.query('CREATE UNIQUE INDEX memories_user_dedupe_key ON memories (user_id, md5(dedupe_key)) WHERE deleted_at IS NULL');
    await queryRunner.query('CREATE INDEX memories_search_vector_idx ON memories USING gin (user_id, search_vector)');
    await queryRunner.query(`
      CREATE TABLE memory_words (
        user_id uuid NOT NULL,
        word text NOT NULL,
        PRIMARY KEY (user_id, word)
      )`);
    await queryRunner.query('CREATE INDEX memory_words_trgm_idx ON memory_words USING gin (user_id, word gin_trgm_ops)');

    const vectorAvailable = (await queryRunner.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)).length > 0;
    if (!vectorAvailable) {
      new Logger('Memory').warn('pgvector is not installed on this PostgreSQL server: memories will be searched lexically only');
      return;
    }
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS vector');
    await queryRunner.query(`
      CREATE TABLE memory_embeddings (
        memory_id uuid PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        model text NOT NULL,
        embedding vector NOT NULL
      )`);
    await queryRunner.query('CREATE INDEX memory_embeddings_user_idx ON memory_embeddings (user_id, model)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE IF EXISTS memory_embeddings');
    await queryRunner.query('DROP TABLE memory_words');
    await queryRunner.query(`DELETE FROM typeorm_metadata WHERE "table" = 'memories'`);
    await queryRunner.query('DROP TABLE memories');
  }
}
