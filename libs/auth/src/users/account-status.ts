import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { UserEntity } from './user.entity.js';

/**
 * Whether a user is disabled, asked on every authenticated request. Answers are kept for a few
 * seconds so a burst of calls costs one query; a change made on this instance applies at once,
 * one made on another instance within `TTL_MS`.
 */
const TTL_MS = 5_000;
const LIMIT = 10_000;

@Injectable()
export class AccountStatus {
  private readonly known = new Map<string, { disabled: boolean; until: number }>();

  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  async isDisabled(userId: string): Promise<boolean> {
    const cached = this.known.get(userId);
    if (cached && cached.until > Date.now()) return cached.disabled;
    const row = await this.users.findOne({ where: { id: userId }, select: { id: true, disabledAt: true } });
    const disabled = row?.disabledAt != null;
    this.remember(userId, disabled);
    return disabled;
  }

  /**
   * Asks the database, not the few seconds' memory: before a token is issued, so that no instance
   * issues one to an account another instance disabled a moment ago.
   */
  async isDisabledNow(userId: string): Promise<boolean> {
    this.known.delete(userId);
    return this.isDisabled(userId);
  }

  /** Sets or clears `disabled_at`; false when there is no such user. */
  async setDisabled(userId: string, disabled: boolean): Promise<boolean> {
    const result = await this.users.update({ id: userId }, { disabledAt: disabled ? () => 'now()' : null });
    this.remember(userId, disabled);
    return (result.affected ?? 0) > 0;
  }

  forget(userId: string): void {
    this.known.delete(userId);
  }

  private remember(userId: string, disabled: boolean): void {
    if (this.known.size >= LIMIT) this.known.delete(this.known.keys().next().value!);
    this.known.set(userId, { disabled, until: Date.now() + TTL_MS });
  }
}
