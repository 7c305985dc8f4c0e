import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { cursorKey, decodeCursor, instantKeySql, InvalidInputError, NotFoundError, toPage, type Page } from '@app/common';
import { ConversationEntity } from './conversation.entity.js';
import { toTitle } from './conversation-title.js';

export interface ConversationView {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

/** Newest first: the last title change (to the microsecond), then the client's id (any text). */
const KEYSET = [cursorKey.instant, cursorKey.text] as const;

const view = (row: ConversationEntity): ConversationView => ({
  id: row.id,
  title: row.title,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/** Titles of a user's conversations; every query is scoped to the user, so another's id is simply not found. */
@Injectable()
export class ConversationsService {
  constructor(@InjectRepository(ConversationEntity) private readonly conversations: Repository<ConversationEntity>) {}

  /** Creates the conversation on its first title; a later title replaces the earlier one. */
  async setTitle(userId: string, conversationId: string, summary: string): Promise<ConversationView> {
    const title = toTitle(summary);
    if (!title) throw new InvalidInputError('summary: must contain some text', { summary: 'empty' });
    const [row] = await this.conversations.manager
      .createQueryBuilder()
      .insert()
      .into(ConversationEntity)
      .values({ userId, id: conversationId, title, updatedAt: () => 'now()' })
      .orUpdate(['title', 'updated_at'], ['user_id', 'id'])
      .returning(['id', 'title', 'created_at', 'updated_at'])
      .execute()
      .then((result) => result.raw as { id: string; title: string; created_at: Date; updated_at: Date }[]);
    return { id: row!.id, title: row!.title, created_at: new Date(row!.created_at).toISOString(), updated_at: new Date(row!.updated_at).toISOString() };
  }

  /** Newest first (by last title change), keyset-paginated on (updated_at, id). */
  async list(userId: string, limit: number, cursor?: string): Promise<Page<ConversationView>> {
    const query = this.conversations.manager
      .getRepository(ConversationEntity)
      .createQueryBuilder('c')
      .where('c.user_id = :userId', { userId })
      .addSelect(instantKeySql('c.updated_at'), 'updated_key')
      .orderBy('c.updated_at', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .limit(limit + 1);
    if (cursor) {
      const [updatedAt, id] = decodeCursor(cursor, KEYSET);
      query.andWhere('(c.updated_at, c.id) < (:updatedAt, :id)', { updatedAt, id });
    }
    const { entities, raw } = await query.getRawAndEntities<{ updated_key: string }>();
    return toPage(entities, limit, KEYSET, (row, index) => [raw[index]!.updated_key, row.id], view);
  }

  async remove(userId: string, conversationId: string): Promise<void> {
    const result = await this.conversations.delete({ userId, id: conversationId });
    if (!result.affected) throw new NotFoundError(`No conversation ${conversationId}`);
  }
}
