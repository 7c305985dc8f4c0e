import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Care circles, their members and invitations, and FHIR Observations with the columns queries use. */
export class CreateHealthTables1796094249000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE care_circles (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT care_circles_created_by_fkey FOREIGN KEY (created_by) REFERENCES users (id) ON DELETE SET NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE care_circle_members (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        circle_id uuid NOT NULL,
        user_id uuid,
        role text NOT NULL,
        status text NOT NULL,
        nickname text,
        health_access smallint NOT NULL DEFAULT 0,
        invited_email text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT care_circle_members_circle_user_key UNIQUE (circle_id, user_id),
        CONSTRAINT care_circle_members_circle_id_fkey FOREIGN KEY (circle_id) REFERENCES care_circles (id) ON DELETE CASCADE,
        CONSTRAINT care_circle_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
      )`);
    await queryRunner.query('CREATE INDEX care_circle_members_user_idx ON care_circle_members (user_id)');
    await queryRunner.query(`
      CREATE TABLE care_circle_invitations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        member_id uuid NOT NULL,
        email text NOT NULL,
        token_hash text NOT NULL,
        invited_by uuid NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT care_circle_invitations_member_id_fkey FOREIGN KEY (member_id) REFERENCES care_circle_members (id) ON DELETE CASCADE
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX care_circle_invitations_token_hash_key ON care_circle_invitations (token_hash)');
    await queryRunner.query(`
      CREATE TABLE health_observations (
        id uuid PRIMARY KEY,
        subject_id uuid NOT NULL,
        resource jsonb NOT NULL,
        code_system text,
        code text,
        display text,
        value_numeric double precision,
        value_unit text,
        value_text text,
        components jsonb,
        effective_at timestamptz,
        issued_at timestamptz,
        clinical_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT health_observations_subject_id_fkey FOREIGN KEY (subject_id) REFERENCES users (id) ON DELETE CASCADE
      )`);
    await queryRunner.query('CREATE INDEX health_observations_subject_clinical_idx ON health_observations (subject_id, clinical_at)');
    await queryRunner.query('CREATE INDEX health_observations_subject_code_clinical_idx ON health_observations (subject_id, code, clinical_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE health_observations');
    await queryRunner.query('DROP TABLE care_circle_invitations');
    await queryRunner.query('DROP TABLE care_circle_members');
    await queryRunner.query('DROP TABLE care_circles');
  }
}
