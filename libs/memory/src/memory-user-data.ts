import { Injectable } from '@nestjs/common';
import { UserDataContributor, type UserDataContributorShape } from '@app/common';
import { MemoryStore } from './memory.store.js';

/** Memories in a user's data export (deleted ones included, marked) and in their erasure. */
@Injectable()
@UserDataContributor('memories')
export class MemoryUserData implements UserDataContributorShape {
  constructor(private readonly store: MemoryStore) {}

  exportFor(userId: string): Promise<unknown> {
    return this.store.exportAll(userId);
  }

  async eraseFor(userId: string): Promise<void> {
    await this.store.eraseAll(userId);
  }

  countFor(userId: string): Promise<number> {
    return this.store.countFor(userId);
  }
}
