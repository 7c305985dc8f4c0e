import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each user's number of memories, live and held (deleted ones not yet purged included), kept by
 * the database itself: every `remember` checks them against MEMORY_MAX_PER_USER under the user's
 * write lock, and counting the user's rows there took time growing with them (2.5 ms at 12,000 on
 * the embedded database, 16 ms at 100,000), during which every other write of the user waited.
 *
 * Statement-level triggers with transition tables, so that a statement touching many rows (an
 * erasure, a purge batch, a bulk load) updates each user's counts once rather than once per row;
 * any writer, the store or an administrator's SQL, keeps them exact. A user's row goes when they
 * hold no memory. The backfill runs in the migration's transaction, after the triggers exist and
 * under their lock on `memories`, so no write is counted twice or missed.
 */
export class CountMemoriesPerUser1796600000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE memory_counts (
        user_id uuid PRIMARY KEY,
        live integer NOT NULL,
        held integer NOT NULL
      )`);
    await queryRunner.query(`
      CREATE FUNCTION memory_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO memory_counts AS counts (user_id, live, held)
            SELECT user_id, count(*) FILTER (WHERE deleted_at IS NULL), count(*) FROM added GROUP BY user_id
            ON CONFLICT (user_id) DO UPDATE SET live = counts.live + excluded.live, held = counts.held + excluded.held;
        ELSIF TG_OP = 'DELETE' THEN
          UPDATE memory_counts counts SET live = counts.live - gone.live, held = counts.held - gone.held
            FROM (SELECT user_id, count(*) FILTER (WHERE deleted_at IS NULL) AS live, count(*) AS held FROM removed GROUP BY user_id) AS gone
           WHERE counts.user_id = gone.user_id;
          DELETE FROM memory_counts WHERE held = 0 AND user_id IN (SELECT user_id FROM removed);
        ELSE
          -- A deletion mark set or cleared (or, in an administrator's SQL, a row moved to another user).
          INSERT INTO memory_counts AS counts (user_id, live, held)
            SELECT user_id, sum(live), sum(held) FROM (
                SELECT user_id, (deleted_at IS NULL)::int AS live, 1 AS held FROM changed_to
                UNION ALL
                SELECT user_id, -(deleted_at IS NULL)::int, -1 FROM changed_from) AS change
             GROUP BY user_id HAVING sum(live) <> 0 OR sum(held) <> 0
            ON CONFLICT (user_id) DO UPDATE SET live = counts.live + excluded.live, held = counts.held + excluded.held;
          DELETE FROM memory_counts WHERE held = 0 AND user_id IN (SELECT user_id FROM changed_from);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER memories_counted_insert AFTER INSERT ON memories
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION memory_counts_apply()`);
    await queryRunner.query(`
      CREATE TRIGGER memories_counted_delete AFTER DELETE ON memories
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION memory_counts_apply()`);
    await queryRunner.query(`
      CREATE TRIGGER memories_counted_update AFTER UPDATE ON memories
        REFERENCING OLD TABLE AS changed_from NEW TABLE AS changed_to FOR EACH STATEMENT EXECUTE FUNCTION memory_counts_apply()`);
    await queryRunner.query(`
      INSERT INTO memory_counts (user_id, live, held)
        SELECT user_id, count(*) FILTER (WHERE deleted_at IS NULL), count(*) FROM memories GROUP BY user_id`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER memories_counted_update ON memories');
    await queryRunner.query('DROP TRIGGER memories_counted_delete ON memories');
    await queryRunner.query('DROP TRIGGER memories_counted_insert ON memories');
    await queryRunner.query('DROP FUNCTION memory_counts_apply()');
    await queryRunner.query('DROP TABLE memory_counts');
  }
}
