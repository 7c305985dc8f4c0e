import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { UserDataContributor, type UserDataContributorShape } from '@app/common';
import { McpApprovalEntity } from './approval.entity.js';

/**
 * A user's approval requests, for export and erasure: what they asked, when, and how it was
 * decided; never the sealed arguments (their digest stands for them). Erasing the user deletes
 * their requests, a waiting one included (its call ends, the request gone).
 */
@Injectable()
@UserDataContributor('approvals')
export class ApprovalsUserData implements UserDataContributorShape {
  constructor(@InjectRepository(McpApprovalEntity) private readonly approvals: Repository<McpApprovalEntity>) {}

  async exportFor(userId: string): Promise<unknown> {
    const rows = await this.approvals.find({ where: { userId }, order: { requestedAt: 'DESC' } });
    return rows.map((row) => ({
      id: row.id,
      tool: row.tool,
      status: row.status,
      arguments_digest: row.argumentsDigest,
      requested_at: row.requestedAt,
      decided_at: row.decidedAt,
      decided_by_email: row.decidedByEmail,
      reason: row.reason,
      ran_at: row.ranAt,
      outcome: row.outcome,
    }));
  }

  async eraseFor(userId: string): Promise<void> {
    await this.approvals.delete({ userId });
  }

  countFor(userId: string): Promise<number> {
    return this.approvals.countBy({ userId });
  }
}
