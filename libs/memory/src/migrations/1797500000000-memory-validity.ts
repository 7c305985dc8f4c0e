import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each memory holds (see docs/memory.md, "Facts that change"): `valid_from`, `valid_to` (null
 * while current), `superseded_by` (the memory that replaced it) and an optional `key`, a short
 * normalized slot ("home city") whose newest memory supersedes the one before.
 *
 * - The rows that exist are current, valid from their creation.
 * - `memories_user_current_key`: at most one current memory per user and key, whoever writes.
 * - `memories_user_dedupe_key` now holds among current memories only: "I live in Paris" said again
 *   after "I moved to Berlin" superseded it is a new memory, not a refresh of the old one.
 * - `memories_superseded_by_fkey` is checked at commit (a memory is superseded, then its successor
 *   stored, in one transaction), and a successor erased for good leaves its predecessor ended
 *   without one. `memories_superseded_by_idx` finds a memory's predecessors (history, recall) and
 *   serves that key's checks when a memory is deleted.
 */
export class MemoryValidity1797500000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE memories
        ADD COLUMN valid_from timestamptz,
        ADD COLUMN valid_to timestamptz,
        ADD COLUMN superseded_by uuid,
        ADD COLUMN key text`);
    // Every row is rewritten once; the counts' trigger would read them all for nothing (no deletion mark changes).
    await queryRunner.query('ALTER TABLE memories DISABLE TRIGGER memories_counted_update');
    await queryRunner.query('UPDATE memories SET valid_from = created_at');
    await queryRunner.query('ALTER TABLE memories ENABLE TRIGGER memories_counted_update');
    await queryRunner.query('ALTER TABLE memories ALTER COLUMN valid_from SET NOT NULL, ALTER COLUMN valid_from SET DEFAULT now()');
    await queryRunner.query('ALTER TABLE memories ADD CONSTRAINT memories_validity_check CHECK (valid_to IS NULL OR valid_to >= valid_from)');
    await queryRunner.query('ALTER TABLE memories ADD CONSTRAINT memories_superseded_check CHECK (superseded_by IS NULL OR valid_to IS NOT NULL)');
    await queryRunner.query(`
      ALTER TABLE memories ADD CONSTRAINT memories_superseded_by_fkey FOREIGN KEY (superseded_by) REFERENCES memories (id)
        ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED`);
    await queryRunner.query('CREATE INDEX memories_superseded_by_idx ON memories (superseded_by) WHERE superseded_by IS NOT NULL');
    await queryRunner.query(
      'CREATE UNIQUE INDEX memories_user_current_key ON memories (user_id, md5(key)) WHERE key IS NOT NULL AND valid_to IS NULL AND deleted_at IS NULL',
    );
    await queryRunner.query('DROP INDEX memories_user_dedupe_key');
    await queryRunner.query(
      'CREATE UNIQUE INDEX memories_user_dedupe_key ON memories (user_id, md5(dedupe_key)) WHERE deleted_at IS NULL AND valid_to IS NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // A superseded text may repeat a current one's, which the old rule forbids: superseded memories become deleted ones (purged after the retention).
    await queryRunner.query('UPDATE memories SET deleted_at = now() WHERE valid_to IS NOT NULL AND deleted_at IS NULL');
    await queryRunner.query('DROP INDEX memories_user_dedupe_key');
    await queryRunner.query('CREATE UNIQUE INDEX memories_user_dedupe_key ON memories (user_id, md5(dedupe_key)) WHERE deleted_at IS NULL');
    await queryRunner.query('DROP INDEX memories_user_current_key');
    await queryRunner.query('DROP INDEX memories_superseded_by_idx');
    await queryRunner.query('ALTER TABLE memories DROP CONSTRAINT memories_superseded_by_fkey');
    await queryRunner.query('ALTER TABLE memories DROP CONSTRAINT memories_superseded_check');
    await queryRunner.query('ALTER TABLE memories DROP CONSTRAINT memories_validity_check');
    await queryRunner.query('ALTER TABLE memories DROP COLUMN key, DROP COLUMN superseded_by, DROP COLUMN valid_to, DROP COLUMN valid_from');
  }
}
