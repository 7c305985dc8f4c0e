import { Injectable } from '@nestjs/common';
import type { UserInfo } from '@app/common';
import type { ApprovalAuditTrail } from '@app/mcp';
import { AdminAudit } from './admin-audit.service.js';

/** Tool approvals' entries (`approval.*`) on the admin audit trail, beside the admins' own. */
@Injectable()
export class ApprovalAudit implements ApprovalAuditTrail {
  constructor(private readonly audit: AdminAudit) {}

  record(actor: UserInfo, action: string, targetUserId: string, detail: Record<string, unknown>): Promise<void> {
    return this.audit.record(actor, action, targetUserId, detail);
  }
}
