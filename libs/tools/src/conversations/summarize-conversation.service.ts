import { Injectable } from '@nestjs/common';
import { Arg, CurrentUser, McpTool, ok, type ToolResult, type UserInfo } from '@app/mcp';
import { InvalidInputError } from '@app/common';
import { ConversationsService } from '@app/conversations';

/** Lets the model title the conversation once it understands what the user wants; the title shows in the user's history. */
@Injectable()
export class SummarizeConversationService {
  constructor(private readonly conversations: ConversationsService) {}

  /**
   * Set a short, self-contained title for the current conversation (at most 200 characters; longer
   * text is cut at a character boundary). It replaces any earlier title and labels the conversation
   * in the user's history.
   */
  @McpTool({
    scopes: ['conversations:write'],
    annotations: { title: 'Summarize conversation', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  async summarizeConversation(
    @CurrentUser() user: UserInfo,
    @Arg('summary', { description: 'The conversation\'s title, e.g. "Sleep trends in January"', schema: { minLength: 1, maxLength: 4000 } }) summary: string,
  ): Promise<ToolResult<{ updated: true }>> {
    if (!user.conversationId) {
      throw new InvalidInputError('No conversation to title: send the X-Conversation-Id header or use an MCP session', { conversation: 'missing' });
    }
    await this.conversations.setTitle(user.userId, user.conversationId, summary);
    return ok({ updated: true });
  }
}
