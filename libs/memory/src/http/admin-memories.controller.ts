import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, PageQueryDto, UuidParamPipe, type UserInfo } from '@app/common';
import { AdminOnly, AdminUsers, CurrentCaller } from '@app/auth';
import { MemoryStore } from '../memory.store.js';
import { ErasedMemoriesDto, ListMemoriesQueryDto, MemoryDto, MemoryHistoryDto, MemoryPageDto, UpdateMemoryDto } from './memory.dto.js';
import { changesOf, historyPage, listOrSearch } from './memory-listing.js';

/**
 * Administrators' view of a user's memories, with what the user's own routes offer (list, search,
 * read, history, edit) and erasure (hard deletes); each call is on the audit trail. A memory id that is no
 * UUID is a 400 naming `id`, as on the user's routes.
 */
@ApiTag('admin')
@Controller('admin/users/:userId/memories')
@AdminOnly()
export class AdminMemoriesController {
  constructor(
    private readonly store: MemoryStore,
    private readonly admins: AdminUsers,
  ) {}

  @Get()
  @ApiOperation({ summary: "List a user's live memories, newest first; with q, search them" })
  @ApiOkResponse({
    type: MemoryPageDto,
    description:
      "The user's current memories (with asOf, those valid then; with includeHistory, superseded ones too), newest first; with `q`, best first, each with a `score`",
  })
  @ApiNotFoundResponse({ description: 'No such user' })
  async list(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string, @Query() query: ListMemoriesQueryDto): Promise<MemoryPageDto> {
    // What was searched for is part of what the admin read.
    await this.admins.audited(admin, userId, 'memories.view', query.q === undefined ? undefined : { q: query.q });
    return listOrSearch(this.store, userId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: "Read one of a user's memories" })
  @ApiOkResponse({ type: MemoryDto })
  @ApiNotFoundResponse({ description: 'No such user, or no such memory of this user' })
  async get(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string, @Param('id', UuidParamPipe) id: string): Promise<MemoryDto> {
    await this.admins.audited(admin, userId, 'memories.read', { memoryId: id });
    return this.store.get(userId, id);
  }

  @Get(':id/history')
  @ApiOperation({ summary: "List the versions of the fact one of a user's memories states, newest first" })
  @ApiOkResponse({ type: MemoryHistoryDto })
  @ApiNotFoundResponse({ description: 'No such user, or no such memory of this user' })
  async history(
    @CurrentCaller() admin: UserInfo,
    @Param('userId', UuidParamPipe) userId: string,
    @Param('id', UuidParamPipe) id: string,
    @Query() query: PageQueryDto,
  ): Promise<MemoryHistoryDto> {
    await this.admins.audited(admin, userId, 'memories.history', { memoryId: id });
    return historyPage(this.store, userId, id, query);
  }

  @Patch(':id')
  @ApiOperation({ summary: "Change the text, kind, key or validFrom of one of a user's memories" })
  @ApiOkResponse({ type: MemoryDto })
  @ApiNotFoundResponse({ description: 'No such user, or no such memory of this user' })
  @ApiConflictResponse({ description: 'Another current memory of this user says the same thing, or holds that key' })
  async update(
    @CurrentCaller() admin: UserInfo,
    @Param('userId', UuidParamPipe) userId: string,
    @Param('id', UuidParamPipe) id: string,
    @Body() body: UpdateMemoryDto,
  ): Promise<MemoryDto> {
    const changes = changesOf(body);
    await this.admins.audited(admin, userId, 'memories.edit', { memoryId: id, changed: Object.keys(changes) });
    return this.store.update(userId, id, changes);
  }

  @Delete(':id')
  @ApiOperation({ summary: "Erase one of a user's memories" })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Erased' })
  @ApiNotFoundResponse({ description: 'No such user, or no such memory of this user' })
  async removeOne(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string, @Param('id', UuidParamPipe) id: string): Promise<void> {
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
