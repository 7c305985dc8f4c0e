import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, PageQueryDto, UuidParamPipe, type UserInfo } from '@app/common';
import { AdminOnly, AdminUsers, CurrentCaller } from '@app/auth';
import { MemoryStore } from '../memory.store.js';
import { ErasedMemoriesDto, MemoryPageDto } from './memory.dto.js';

/** Administrators' view of a user's memories: list, delete one, erase all (hard deletes); each call is on the audit trail. */
@ApiTag('admin')
@Controller('admin/users/:userId/memories')
@AdminOnly()
export class AdminMemoriesController {
  constructor(
    private readonly store: MemoryStore,
    private readonly admins: AdminUsers,
  ) {}

  @Get()
  @ApiOperation({ summary: "List a user's live memories, newest first" })
  @ApiOkResponse({ type: MemoryPageDto, description: "The user's live memories, newest first" })
  @ApiNotFoundResponse({ description: 'No such user' })
  async list(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string, @Query() query: PageQueryDto): Promise<MemoryPageDto> {
    await this.admins.audited(admin, userId, 'memories.view');
    return this.store.list(userId, { limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) });
  }

  @Delete(':id')
  @ApiOperation({ summary: "Erase one of a user's memories" })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Erased' })
  @ApiNotFoundResponse({ description: 'No such user, or no such memory of this user' })
  async removeOne(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string, @Param('id') id: string): Promise<void> {
    await this.admins.audited(admin, userId, 'memories.erase', { memoryId: id });
    await this.store.hardDelete(userId, id);
  }

  /** For a data-subject request: nothing of these memories remains. */
  @Delete()
  @ApiOperation({ summary: "Erase all of a user's memories" })
  @ApiOkResponse({ type: ErasedMemoriesDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  async eraseAll(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string): Promise<ErasedMemoriesDto> {
    await this.admins.audited(admin, userId, 'memories.erase_all');
    return { erased: await this.store.eraseAll(userId) };
  }
}
