import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { UserDataContributor, type UserDataContributorShape } from '@app/common';
import { removeErasedMember } from './circles/erased-member.js';
import { ObservationEntity } from './entities/observation.entity.js';

/** A user's FHIR Observations and care-circle memberships, for export and erasure. */
@Injectable()
@UserDataContributor('health')
export class HealthUserData implements UserDataContributorShape {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async exportFor(userId: string): Promise<unknown> {
    const observations = await this.dataSource.getRepository(ObservationEntity).find({ where: { subjectId: userId }, order: { clinicalAt: 'DESC' } });
    const memberships = await this.dataSource.query(
      `SELECT c.id AS circle_id, c.name AS circle_name, m.id AS member_id, m.role, m.status, m.nickname, m.health_access
         FROM care_circle_members m JOIN care_circles c ON c.id = m.circle_id WHERE m.user_id = $1 ORDER BY m.created_at`,
      [userId],
    );
    return { observations: observations.map((row) => row.resource), circle_memberships: memberships };
  }

  /** Observations and memberships go, and what the user did in circles goes with them (see `removeErasedMember`). */
  async eraseFor(userId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('DELETE FROM health_observations WHERE subject_id = $1', [userId]);
      await removeErasedMember(manager, userId);
    });
  }

  async countFor(userId: string): Promise<number> {
    return this.dataSource.getRepository(ObservationEntity).countBy({ subjectId: userId });
  }
}
