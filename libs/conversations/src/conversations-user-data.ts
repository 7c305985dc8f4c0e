import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { UserDataContributor, type UserDataContributorShape } from '@app/common';
import { ConversationEntity } from './conversation.entity.js';

/** A user's conversation titles, for export and erasure. */
@Injectable()
@UserDataContributor('conversations')
export class ConversationsUserData implements UserDataContributorShape {
  constructor(@InjectRepository(ConversationEntity) private readonly conversations: Repository<ConversationEntity>) {}

  async exportFor(userId: string): Promise<unknown> {
    const rows = await this.conversations.find({ where: { userId }, order: { updatedAt: 'DESC' } });
    return rows.map((row) => ({ id: row.id, title: row.title, created_at: row.createdAt, updated_at: row.updatedAt }));
  }

  async eraseFor(userId: string): Promise<void> {
    await this.conversations.delete({ userId });
  }

  countFor(userId: string): Promise<number> {
    return this.conversations.countBy({ userId });
  }
}
