import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { ApiTag, PageQueryDto, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { ConversationsService } from './conversations.service.js';

export class ConversationDto {
  @ApiProperty({ description: 'The id the client uses (X-Conversation-Id, else the MCP session id)' }) id: string;
  @ApiProperty({ maxLength: 200 }) title: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class ConversationPageDto {
  @ApiProperty({ type: [ConversationDto] }) items: ConversationDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}

/** The caller's conversations with the titles `summarize_conversation` set. */
@ApiTag('conversations')
@Controller('api/conversations')
@Authenticated()
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  @ApiOperation({ summary: 'List your conversations, newest first' })
  @ApiOkResponse({ type: ConversationPageDto, description: 'Newest first' })
  list(@CurrentCaller() caller: UserInfo, @Query() page: PageQueryDto): Promise<ConversationPageDto> {
    return this.conversations.list(caller.userId, page.limit, page.cursor);
  }

  @Delete(':conversationId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete one of your conversations' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ description: 'No such conversation of yours' })
  async remove(@CurrentCaller() caller: UserInfo, @Param('conversationId') conversationId: string): Promise<void> {
    await this.conversations.remove(caller.userId, conversationId);
  }
}
