import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { CircleMemberEntity, HEALTH_ACCESS } from '../entities/circle-member.entity.js';
import type { CirclePerson } from './member-resolution.js';

/**
 * Who may read whose health data. Always read fresh from the database: lowering access, declining, leaving or
 * being removed takes effect on the very next call.
 */
@Injectable()
export class HealthAccessService {
  constructor(@InjectRepository(CircleMemberEntity) private readonly members: Repository<CircleMemberEntity>) {}

  /**
   * Everyone in the circles the caller is an accepted member of, the caller included, whatever their status and
   * whether or not they share: naming any of them must name them, not someone whose nickname looks alike.
   * Someone invited who has not answered is a person of their own (no user yet), known by the invited address.
   */
  async circlePeople(userId: string): Promise<CirclePerson[]> {
    const rows: { user_id: string | null; member_ids: string[]; name: string | null; email: string | null; nicknames: (string | null)[]; shares: boolean }[] =
      await this.members.query(
        `SELECT them.user_id, u.name, COALESCE(u.email, min(them.invited_email)) AS email,
                array_agg(them.id::text ORDER BY them.status = 'accepted' AND them.health_access >= $2 DESC, them.created_at, them.id) AS member_ids,
                array_agg(them.nickname ORDER BY them.created_at, them.id) AS nicknames,
                bool_or(them.user_id <> $1 AND them.status = 'accepted' AND them.health_access >= $2) AS shares
           FROM care_circle_members me
           JOIN care_circle_members them ON them.circle_id = me.circle_id
           LEFT JOIN users u ON u.id = them.user_id
          WHERE me.user_id = $1 AND me.status = 'accepted'
          GROUP BY COALESCE(them.user_id, them.id), them.user_id, u.name, u.email
          ORDER BY u.name NULLS LAST, COALESCE(them.user_id, them.id)`,
        [userId, HEALTH_ACCESS.view],
      );
    return rows.map((row) => ({
      userId: row.user_id,
      memberIds: row.member_ids,
      name: row.name,
      email: row.email,
      nicknames: [...new Set(row.nicknames.filter((nickname): nickname is string => !!nickname))],
      sharesWithCaller: row.shares === true,
    }));
  }

  /**
   * The gate every read of someone's health data passes, separately from how that someone was found:
   * oneself, or an accepted member of a circle the caller is also accepted in, who grants at least view access there.
   */
  async canReadHealth(callerId: string, subjectId: string): Promise<boolean> {
    if (callerId === subjectId) return true;
    const rows = await this.members.query(
      `SELECT 1 FROM care_circle_members me
         JOIN care_circle_members them ON them.circle_id = me.circle_id
        WHERE me.user_id = $1 AND me.status = 'accepted'
          AND them.user_id = $2 AND them.status = 'accepted' AND them.health_access >= $3
        LIMIT 1`,
      [callerId, subjectId, HEALTH_ACCESS.view],
    );
    return rows.length > 0;
  }

  /** Whether a member id is one of the caller's own memberships (an acting-for that names oneself). */
  async isOwnMemberId(userId: string, memberId: string): Promise<boolean> {
    const rows = await this.members.query('SELECT 1 FROM care_circle_members WHERE id::text = $1 AND user_id = $2', [memberId.toLowerCase(), userId]);
    return rows.length > 0;
  }
}
