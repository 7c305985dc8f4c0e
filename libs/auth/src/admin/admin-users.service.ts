import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, type Repository } from 'typeorm';
import { ConflictError, cursorKey, decodeCursor, DEFAULT_PAGE_SIZE, NotFoundError, toPage, type Page, type UserInfo } from '@app/common';
import { AccountStatus } from '../users/account-status.js';
import { UserDataService } from '../user-data/user-data.service.js';
import { UserEntity } from '../users/user.entity.js';
import { AdminAudit } from './admin-audit.service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AdminUserView {
  id: string;
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  createdAt: Date;
  disabledAt: Date | null;
}

/** Oldest first: the creation time to the millisecond, then the id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;

const view = ({ id, issuer, subject, email, name, createdAt, disabledAt }: UserEntity): AdminUserView => ({
  id,
  issuer,
  subject,
  email,
  name,
  createdAt,
  disabledAt,
});

/** What admins do to users; every change is recorded in the audit trail. */
@Injectable()
export class AdminUsers {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly status: AccountStatus,
    private readonly userData: UserDataService,
    private readonly audit: AdminAudit,
  ) {}

  /**
   * Oldest first, optionally only those whose e-mail, name or subject contains `q`. The keyset
   * is the creation time to the millisecond (what a cursor can carry) and the id.
   */
  async search(q: string | undefined, limit = DEFAULT_PAGE_SIZE, cursor?: string): Promise<Page<AdminUserView>> {
    const created = `date_trunc('milliseconds', "user"."created_at")`;
    const query = this.users
      .createQueryBuilder('user')
      .orderBy(created, 'ASC')
      .addOrderBy('user.id', 'ASC')
      .limit(limit + 1);
    if (q) {
      // LIKE's own wildcards in the search text are matched literally.
      const pattern = `%${q.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
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
    return toPage(await query.getMany(), limit, KEYSET, (user) => [user.createdAt.toISOString(), user.id], view);
  }

  async detail(admin: UserInfo, userId: string): Promise<AdminUserView & { counts: Record<string, number> }> {
    const user = await this.find(userId);
    await this.audit.record(admin, 'user.view', user.id);
    return { ...view(user), counts: await this.userData.counts(user.id) };
  }

  async setDisabled(admin: UserInfo, userId: string, disabled: boolean): Promise<AdminUserView> {
    const user = await this.find(userId);
    if (disabled && user.id === admin.userId) throw new ConflictError('You cannot disable your own account');
    await this.status.setDisabled(user.id, disabled);
    await this.audit.record(admin, disabled ? 'user.disable' : 'user.enable', user.id);
    return view((await this.users.findOneBy({ id: user.id }))!);
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
   */
  async audited(admin: UserInfo, userId: string, action: string, detail?: Record<string, unknown>): Promise<void> {
    const user = await this.find(userId);
    await this.audit.record(admin, action, user.id, detail);
  }

  private async find(userId: string): Promise<UserEntity> {
    const user = UUID.test(userId) ? await this.users.findOneBy({ id: userId }) : null;
    if (!user) throw new NotFoundError('No such user');
    return user;
  }
}
