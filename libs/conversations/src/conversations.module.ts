import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { ConversationEntity } from './conversation.entity.js';
import { ConversationsController } from './conversations.controller.js';
import { ConversationsService } from './conversations.service.js';
import { ConversationsUserData } from './conversations-user-data.js';
import { CreateConversations1796094670000 } from './migrations/1796094670000-create-conversations.js';

/** Conversation titles: the table, `GET/DELETE /api/conversations`, and the service `summarize_conversation` uses. */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [ConversationEntity], migrations: [CreateConversations1796094670000] }), AuthModule],
  controllers: [ConversationsController],
  providers: [ConversationsService, ConversationsUserData],
  exports: [ConversationsService],
})
export class ConversationsModule {}
