import { SetMetadata } from '@nestjs/common';

export const USER_DATA_CONTRIBUTOR = 'mirobody:user-data-contributor';

/**
 * What a lib holds for one user, for `GET /api/me/export`, `DELETE /api/me`, the admin's user
 * view and `DELETE /admin/users/:id`. Every lib that stores rows of a user provides one.
 */
export interface UserDataContributorShape {
  /** Everything the lib holds for the user, JSON-serialisable; never secrets nor their hashes. */
  exportFor(userId: string): Promise<unknown>;
  /** Deletes every row (and file) of the user; must be idempotent. */
  eraseFor(userId: string): Promise<void>;
  /** How many items the lib holds for the user (shown to admins). */
  countFor(userId: string): Promise<number>;
}

/**
 * Marks a provider as the holder of a lib's part of a user's data, under `name` (its key in the
 * export and in the admin's counts). Records metadata only; the provider is found by discovery.
 */
export const UserDataContributor = (name: string): ClassDecorator => SetMetadata(USER_DATA_CONTRIBUTOR, name);
