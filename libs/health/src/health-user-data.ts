import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { UserDataContributor, type UserDataContributorShape } from '@app/common';
import { removeErasedMember } from './circles/erased-member.js';
import { ObservationEntity } from './entities/observation.entity.js';

/** A user's FHIR Observations and care-circle memberships, for export and erasure. */
@Injectable()
@UserDataContributor('health')
export class HealthUserData implements UserDataContributorShape {
  constructor(@InjectRepository(ObservationEntity) private readonly observations: Repository<ObservationEntity>) {}

  async exportFor(userId: string): Promise<unknown> {
    const observations = await this.observations.find({ where: { subjectId: userId }, order: { clinicalAt: 'DESC' } });
    const memberships = await this.observations.query(
      `SELECT c.id AS circle_id, c.name AS circle_name, m.id AS member_id, m.role, m.status, m.nickname, m.health_access
         FROM care_circle_members m JOIN care_circles c ON c.id = m.circle_id WHERE m.user_id = $1 ORDER BY m.created_at`,
      [userId],
    );
    return { observations: observations.map((row) => row.resource), circle_memberships: memberships };
  }

  /** Observations and memberships go, and what the user did in circles goes with them (see `removeErasedMember`). */
  async eraseFor(userId: string): Promise<void> {
    await this.observations.manager.transaction(async (manager) => {
      await manager.query('DELETE FROM health_observations WHERE subject_id = $1', [userId]);
      await removeErasedMember(manager, userId);
    });
  }

  async countFor(userId: string): Promise<number> {
    return this.observations.countBy({ subjectId: userId });
  }
}
