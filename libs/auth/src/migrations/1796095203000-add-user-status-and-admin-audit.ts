import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Disabling a user (their credentials refused everywhere), and the audit trail of admin actions. */
export class AddUserStatusAndAdminAudit1796095203000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE users ADD COLUMN disabled_at timestamptz');
    // The actor and the target are kept by id and e-mail without foreign keys: the trail must
    // outlive an erased user, and name them as they were.
    await queryRunner.query(`
      CREATE TABLE admin_audit (
        id bigserial PRIMARY KEY,
        actor_id uuid NOT NULL,
        actor_email text,
        action text NOT NULL,
        target_user_id uuid,
        detail jsonb,
        at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX admin_audit_target_user_id_idx ON admin_audit (target_user_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE admin_audit');
    await queryRunner.query('ALTER TABLE users DROP COLUMN disabled_at');
  }
}
