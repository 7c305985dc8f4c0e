import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { cursorKey, decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page, type UserInfo } from '@app/common';
import { AdminAuditEntity } from './admin-audit.entity.js';

export type AuditEntry = AdminAuditEntity;

/** The trail's keyset: the bigint id, as text. */
const KEYSET = [cursorKey.int8] as const;

/** The audit trail of admin actions, written before the action's answer goes out. */
@Injectable()
export class AdminAudit {
  constructor(@InjectRepository(AdminAuditEntity) private readonly entries: Repository<AdminAuditEntity>) {}

  async record(actor: UserInfo, action: string, targetUserId: string | null, detail?: Record<string, unknown>): Promise<void> {
    await this.entries.save(this.entries.create({ actorId: actor.userId, actorEmail: actor.email ?? null, action, targetUserId, detail: detail ?? null }));
  }

  /** Newest first (ids grow with time). */
  async list(limit = DEFAULT_PAGE_SIZE, cursor?: string): Promise<Page<AuditEntry>> {
    const query = this.entries
      .createQueryBuilder('entry')
      .orderBy('entry.id', 'DESC')
      .limit(limit + 1);
    if (cursor) {
      const [id] = decodeCursor(cursor, KEYSET);
      query.where('entry.id < :id', { id });
    }
    return toPage(await query.getMany(), limit, KEYSET, (entry) => [entry.id]);
  }
}
