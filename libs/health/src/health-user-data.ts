import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { UserDataContributor, type UserDataContributorShape } from '@app/common';
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

  /** Observations and memberships go; a circle nobody accepted is left in goes with them. */
  async eraseFor(userId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('DELETE FROM health_observations WHERE subject_id = $1', [userId]);
      const circles: { circle_id: string }[] = await manager.query('DELETE FROM care_circle_members WHERE user_id = $1 RETURNING circle_id', [userId]);
      await manager.query(
        `DELETE FROM care_circles c WHERE c.id = ANY($1::uuid[])
            AND NOT EXISTS (SELECT 1 FROM care_circle_members m WHERE m.circle_id = c.id AND m.status = 'accepted')`,
        [circles.map((row) => row.circle_id)],
      );
    });
  }

  async countFor(userId: string): Promise<number> {
    return this.dataSource.getRepository(ObservationEntity).countBy({ subjectId: userId });
  }
}
