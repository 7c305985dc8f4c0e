import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An invitation does not outlive its sender: erasing an account clears `invited_by` (kept so by a foreign key
 * from now on), which makes the invitation void, and detaches an open one from its pending member row, which
 * goes (`member_id` null). Invitations whose sender was erased before this release are voided the same way:
 * their tokens let anyone into a circle nobody may have been left to manage.
 */
export class VoidInvitationsOfErasedSenders1796420995000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE care_circle_invitations ALTER COLUMN member_id DROP NOT NULL, ALTER COLUMN invited_by DROP NOT NULL');
    const senderGone = 'invited_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = invited_by)';
    await queryRunner.query(`UPDATE care_circle_invitations SET member_id = NULL WHERE used_at IS NULL AND ${senderGone}`);
    await queryRunner.query(`UPDATE care_circle_invitations SET invited_by = NULL WHERE ${senderGone}`);
    // A pending row exists only for its invitation (both are written in one transaction).
    await queryRunner.query(`
      DELETE FROM care_circle_members m
       WHERE m.user_id IS NULL AND m.status = 'pending'
         AND NOT EXISTS (SELECT 1 FROM care_circle_invitations i WHERE i.member_id = m.id)`);
    await queryRunner.query(
      'ALTER TABLE care_circle_invitations ADD CONSTRAINT care_circle_invitations_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES users (id) ON DELETE SET NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE care_circle_invitations DROP CONSTRAINT care_circle_invitations_invited_by_fkey');
    // Void invitations cannot be told apart from valid ones without their null columns.
    await queryRunner.query('DELETE FROM care_circle_invitations WHERE member_id IS NULL OR invited_by IS NULL');
    await queryRunner.query('ALTER TABLE care_circle_invitations ALTER COLUMN member_id SET NOT NULL, ALTER COLUMN invited_by SET NOT NULL');
  }
}
