import { Controller, Delete, Get, HttpCode, Logger, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DEFAULT_PAGE_SIZE, InvalidInputError, PageQueryDto, type UserInfo } from '@app/common';
import { AdminOnly, CurrentCaller } from '@app/auth';
import { MemoryStore } from '../memory.store.js';
import { ErasedMemoriesDto, MemoryPageDto } from './memory.dto.js';

const userIdPipe = new ParseUUIDPipe({ exceptionFactory: () => new InvalidInputError('userId must be a UUID', { userId: 'must be a UUID' }) });

/** Administrators' view of a user's memories: list, delete one, erase all (hard deletes, each logged with the admin's id). */
@ApiTags('admin')
@Controller('admin/users/:userId/memories')
@AdminOnly()
export class AdminMemoriesController {
  private readonly logger = new Logger('MemoryAdmin');

  constructor(private readonly store: MemoryStore) {}

  @Get()
  @ApiOkResponse({ type: MemoryPageDto, description: "The user's live memories, newest first" })
  list(@Param('userId', userIdPipe) userId: string, @Query() query: PageQueryDto): Promise<MemoryPageDto> {
    return this.store.list(userId, { limit: query.limit ?? DEFAULT_PAGE_SIZE, ...(query.cursor ? { cursor: query.cursor } : {}) });
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Erased' })
  @ApiNotFoundResponse({ description: 'No such memory of this user' })
  async removeOne(@CurrentCaller() admin: UserInfo, @Param('userId', userIdPipe) userId: string, @Param('id') id: string): Promise<void> {
    await this.store.hardDelete(userId, id);
    this.logger.log(`Admin ${admin.userId} erased memory ${id} of user ${userId}`);
  }

  /** For a data-subject request: nothing of these memories remains. */
  @Delete()
  @ApiOkResponse({ type: ErasedMemoriesDto })
  async eraseAll(@CurrentCaller() admin: UserInfo, @Param('userId', userIdPipe) userId: string): Promise<ErasedMemoriesDto> {
    const erased = await this.store.eraseAll(userId);
    this.logger.log(`Admin ${admin.userId} erased all ${erased} memories of user ${userId}`);
    return { erased };
  }
}
