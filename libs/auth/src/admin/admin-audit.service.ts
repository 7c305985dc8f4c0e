import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import type { Repository, SelectQueryBuilder } from 'typeorm';
import { cursorKey, decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page, type UserInfo } from '@app/common';
import { UserEntity } from '../users/user.entity.js';
import { AdminAuditEntity } from './admin-audit.entity.js';
import { AUDIT_CSV_HEADER, auditCsvRow } from './audit-csv.js';
import { containing, startingWith } from './like-pattern.js';

/** Which entries of the trail to read; every field narrows it, none reads all. */
export interface AuditFilter {
  /** A user id: that admin's entries; any other text: part of the actor's e-mail, case-insensitive. */
  actor?: string;
  /** An action, or an area's actions with `.*` (`memories.*`). */
  action?: string;
  /** The user the entries are about. */
  target?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
}

export interface AuditEntry {
  id: string;
  at: Date;
  actorId: string;
  actorEmail: string | null;
  /** Where the admin's request came from; null on entries older than the column. */
  actorAddress: string | null;
  action: string;
  targetUserId: string | null;
  /** The target's e-mail now: null once they are erased. */
  targetEmail: string | null;
  detail: Record<string, unknown> | null;
}

/**
 * The trail's keyset: the bigint id, as text. The same whatever the filter, so a cursor taken
 * under one filter and used under another goes on from the same entry, under the new filter.
 */
const KEYSET = [cursorKey.int8] as const;
/** Entries the CSV export reads per query: a page in memory at a time, whatever the trail's size. */
const EXPORT_PAGE_SIZE = 1_000;

/** The audit trail of admin actions, written before the action's answer goes out. */
@Injectable()
export class AdminAudit {
  constructor(@InjectRepository(AdminAuditEntity) private readonly entries: Repository<AdminAuditEntity>) {}

  async record(actor: UserInfo, action: string, targetUserId: string | null, detail?: Record<string, unknown>): Promise<void> {
    await this.entries.save(
      this.entries.create({
        actorId: actor.userId,
        actorEmail: actor.email ?? null,
        actorAddress: actor.address ?? null,
        action,
        targetUserId,
        detail: detail ?? null,
      }),
    );
  }

  /** Newest first (ids grow with time). */
  async list(filter: AuditFilter, limit = DEFAULT_PAGE_SIZE, cursor?: string): Promise<Page<AuditEntry>> {
    const before = cursor === undefined ? undefined : decodeCursor(cursor, KEYSET)[0];
    return toPage(await this.read(filter, limit + 1, before), limit, KEYSET, (entry) => [entry.id]);
  }

  /**
   * Every entry `filter` selects as CSV, newest first, read `EXPORT_PAGE_SIZE` at a time. Entries
   * written while it streams are not in it (each page starts below the previous one). The first
   * page is read before the stream is handed over, so that a database that cannot be reached fails
   * the request (503) rather than cutting a download short.
   */
  async exportCsv(filter: AuditFilter): Promise<Readable> {
    let page = await this.read(filter, EXPORT_PAGE_SIZE);
    const nextPage = (before: string) => this.read(filter, EXPORT_PAGE_SIZE, before);
    async function* lines(): AsyncGenerator<string> {
      yield AUDIT_CSV_HEADER;
      for (;;) {
        if (page.length) yield page.map(auditCsvRow).join('');
        if (page.length < EXPORT_PAGE_SIZE) return;
        page = await nextPage(page.at(-1)!.id);
      }
    }
    return Readable.from(lines());
  }

  private async read(filter: AuditFilter, count: number, before?: string): Promise<AuditEntry[]> {
    const query = this.entries
      .createQueryBuilder('entry')
      .leftJoin(UserEntity, 'target', 'target.id = entry.targetUserId')
      .addSelect('target.email', 'target_email')
      .orderBy('entry.id', 'DESC')
      .limit(count);
    narrow(query, filter);
    if (before !== undefined) query.andWhere('entry.id < :before', { before });
    const { entities, raw } = await query.getRawAndEntities<{ target_email: string | null }>();
    return entities.map(({ id, at, actorId, actorEmail, actorAddress, action, targetUserId, detail }, index) => ({
      id,
      at,
      actorId,
      actorEmail,
      actorAddress,
      action,
      targetUserId,
      targetEmail: raw[index]!.target_email,
      detail,
    }));
  }
}

/** Adds a filter's conditions; `admin_audit_actor_id_idx`, `..._target_user_id_idx` and `..._at_idx` serve them. */
function narrow(query: SelectQueryBuilder<AdminAuditEntity>, { actor, action, target, from, to }: AuditFilter): void {
  if (actor !== undefined) {
    if (isUUID(actor, 'all')) query.andWhere('entry.actorId = :actor', { actor });
    else query.andWhere('entry.actorEmail ILIKE :actorPattern', { actorPattern: containing(actor) });
  }
  if (action?.endsWith('.*')) query.andWhere('entry.action LIKE :actionPrefix', { actionPrefix: startingWith(action.slice(0, -1)) });
  else if (action !== undefined) query.andWhere('entry.action = :action', { action });
  if (target !== undefined) query.andWhere('entry.targetUserId = :target', { target });
  if (from) query.andWhere('entry.at >= CAST(:from AS timestamptz)', { from: from.toISOString() });
  if (to) query.andWhere('entry.at < CAST(:to AS timestamptz)', { to: to.toISOString() });
}
