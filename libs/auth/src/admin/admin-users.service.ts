import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, type Repository, type SelectQueryBuilder } from 'typeorm';
import { ConflictError, cursorKey, decodeCursor, DEFAULT_PAGE_SIZE, isUuid, NotFoundError, toPage, type Page, type UserInfo } from '@app/common';
import { ConsoleSessions } from '../identity/console-sessions/console-sessions.service.js';
import { AccountStatus } from '../users/account-status.js';
import { UserDataService } from '../user-data/user-data.service.js';
import { UserEntity } from '../users/user.entity.js';
import { AdminAudit } from './admin-audit.service.js';
import { LAST_SEEN_SQL } from './last-seen.js';
import { containing } from './like-pattern.js';

export interface AdminUserView {
  id: string;
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  createdAt: Date;
  disabledAt: Date | null;
  /** The latest use of any of their credentials (see `LAST_SEEN_SQL`). */
  lastSeenAt: Date | null;
  /** What their latest token or sign-in carried. */
  roles: string[];
}

/** A user row with when they were last seen, which one statement reads beside it. */
type UserWithActivity = { user: UserEntity; lastSeenAt: Date | null };

/** Oldest first: the creation time to the millisecond, then the id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;

const view = ({ user: { id, issuer, subject, email, name, createdAt, disabledAt, roles }, lastSeenAt }: UserWithActivity): AdminUserView => ({
  id,
  issuer,
  subject,
  email,
  name,
  createdAt,
  disabledAt,
  lastSeenAt,
  roles,
});

/** What admins do to users; every change is recorded in the audit trail. */
@Injectable()
export class AdminUsers {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly status: AccountStatus,
    private readonly userData: UserDataService,
    private readonly audit: AdminAudit,
    private readonly consoleSessions: ConsoleSessions,
  ) {}

  /**
   * Oldest first, optionally only those whose e-mail, name or subject contains `q`. The keyset
   * is the creation time to the millisecond (what a cursor can carry) and the id.
   */
  async search(q: string | undefined, limit = DEFAULT_PAGE_SIZE, cursor?: string): Promise<Page<AdminUserView>> {
    const created = `date_trunc('milliseconds', "user"."created_at")`;
    const query = this.withActivity()
      .orderBy(created, 'ASC')
      .addOrderBy('user.id', 'ASC')
      .limit(limit + 1);
    if (q) {
      const pattern = containing(q);
      query.andWhere(
        new Brackets((where) =>
          where.where('user.email ILIKE :pattern', { pattern }).orWhere('user.name ILIKE :pattern').orWhere('user.subject ILIKE :pattern'),
        ),
      );
    }
    if (cursor) {
      const [createdAt, id] = decodeCursor(cursor, KEYSET);
      query.andWhere(`(${created}, "user"."id") > (CAST(:createdAt AS timestamptz), CAST(:id AS uuid))`, { createdAt, id });
    }
    return toPage(await this.read(query), limit, KEYSET, ({ user }) => [user.createdAt.toISOString(), user.id], view);
  }

  async detail(admin: UserInfo, userId: string): Promise<AdminUserView & { counts: Record<string, number> }> {
    const user = await this.find(userId);
    await this.audit.record(admin, 'user.view', user.id);
    return { ...(await this.viewOf(user.id)), counts: await this.userData.counts(user.id) };
  }

  async setDisabled(admin: UserInfo, userId: string, disabled: boolean): Promise<AdminUserView> {
    const user = await this.find(userId);
    if (disabled && user.id === admin.userId) throw new ConflictError('You cannot disable your own account');
    await this.status.setDisabled(user.id, disabled);
    // Refused from now on whatever; ended, so that enabling the account again opens none of them.
    if (disabled) await this.consoleSessions.closeAllOf(user.id);
    await this.audit.record(admin, disabled ? 'user.disable' : 'user.enable', user.id);
    return this.viewOf(user.id);
  }

  async erase(admin: UserInfo, userId: string): Promise<void> {
    const user = await this.find(userId);
    await this.audit.record(admin, 'user.erase', user.id, { email: user.email, issuer: user.issuer, subject: user.subject });
    await this.userData.erase(user.id);
  }

  /**
   * For another lib's admin route about one user's data (their memories, their files): the user
   * must exist (404 "No such user", as on `/admin/users/:id`, rather than an empty list or
   * `{ erased: 0 }` for a mistyped id), and the access goes on the audit trail before it happens.
   * Answers the user's id as stored (lower case, however the path spelled it).
   */
  async audited(admin: UserInfo, userId: string, action: string, detail?: Record<string, unknown>): Promise<string> {
    const user = await this.find(userId);
    await this.audit.record(admin, action, user.id, detail);
    return user.id;
  }

  /** An admin action on what no user owns (an anonymous caller's MCP task): on the audit trail without a target user. */
  async auditedWithoutUser(admin: UserInfo, action: string, detail?: Record<string, unknown>): Promise<void> {
    await this.audit.record(admin, action, null, detail);
  }

  private withActivity(): SelectQueryBuilder<UserEntity> {
    return this.users.createQueryBuilder('user').addSelect(LAST_SEEN_SQL, 'last_seen_at');
  }

  private async read(query: SelectQueryBuilder<UserEntity>): Promise<UserWithActivity[]> {
    const { entities, raw } = await query.getRawAndEntities<{ last_seen_at: Date | string | null }>();
    return entities.map((user, index) => {
      const lastSeen = raw[index]!.last_seen_at;
      return { user, lastSeenAt: lastSeen === null ? null : new Date(lastSeen) };
    });
  }

  private async viewOf(userId: string): Promise<AdminUserView> {
    const [found] = await this.read(this.withActivity().where('user.id = :userId', { userId }));
    if (!found) throw new NotFoundError('No such user');
    return view(found);
  }

  private async find(userId: string): Promise<UserEntity> {
    const user = isUuid(userId) ? await this.users.findOneBy({ id: userId }) : null;
    if (!user) throw new NotFoundError('No such user');
    return user;
  }
}
