import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
} from '@nestjs/swagger';
import { ApiTag, PageQueryDto, UuidParamPipe, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { MemoryStore } from '../memory.store.js';
import {
  CreatedMemoryDto,
  CreateMemoryDto,
  ListMemoriesQueryDto,
  MemoryDto,
  MemoryExportDto,
  MemoryHistoryDto,
  MemoryPageDto,
  UpdateMemoryDto,
} from './memory.dto.js';
import { changesOf, historyPage, listOrSearch } from './memory-listing.js';

/**
 * The caller's own memories. Another user's memory id answers 404, exactly like a missing one; a
 * memory id that is no UUID is a 400 naming `id`, as on every route that takes one.
 */
@ApiTag('memories')
@Controller('api/memories')
@Authenticated()
@ApiServiceUnavailableResponse({ description: 'Long-term memory is not enabled on this server (remember and search only)' })
export class MemoriesController {
  constructor(private readonly store: MemoryStore) {}

  /** Newest first by pages; with `q`, a search (the recall tool's retrieval), best first, in one page. Current memories unless `asOf` or `includeHistory` says otherwise. */
  @Get()
  @ApiOperation({ summary: 'List your memories, newest first; with q, search them, best first' })
  @ApiOkResponse({ type: MemoryPageDto })
  list(@CurrentCaller() caller: UserInfo, @Query() query: ListMemoriesQueryDto): Promise<MemoryPageDto> {
    return listOrSearch(this.store, caller.userId, query);
  }

  /** Declared before `:id` so that "export" is never taken for an id. */
  @Get('export')
  @ApiOperation({ summary: 'Export all your memories, deleted ones marked' })
  @ApiOkResponse({ type: MemoryExportDto })
  async export(@CurrentCaller() caller: UserInfo): Promise<MemoryExportDto> {
    return { memories: await this.store.exportAll(caller.userId) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read one of your memories' })
  @ApiOkResponse({ type: MemoryDto })
  @ApiNotFoundResponse({ description: 'No such memory of yours' })
  get(@CurrentCaller() caller: UserInfo, @Param('id', UuidParamPipe) id: string): Promise<MemoryDto> {
    return this.store.get(caller.userId, id);
  }

  /** The versions of the fact it states: those it superseded and those that superseded it, newest validFrom first. */
  @Get(':id/history')
  @ApiOperation({ summary: 'List the versions of the fact one of your memories states, newest first' })
  @ApiOkResponse({ type: MemoryHistoryDto })
  @ApiNotFoundResponse({ description: 'No such memory of yours' })
  history(@CurrentCaller() caller: UserInfo, @Param('id', UuidParamPipe) id: string, @Query() query: PageQueryDto): Promise<MemoryHistoryDto> {
    return historyPage(this.store, caller.userId, id, query);
  }

  /**
   * Stores a memory; the same sentence again (other case, spacing, width) refreshes the current one
   * instead. With `replaces` or `key`, the memories it updates are superseded: kept, their validity ended.
   */
  @Post()
  @ApiOperation({ summary: 'Store a memory; the same sentence again refreshes the first one' })
  @ApiCreatedResponse({ type: CreatedMemoryDto })
  @ApiConflictResponse({
    description: 'You keep MEMORY_MAX_PER_USER memories, or hold twice that many with the deleted ones not yet purged (MEMORY_DELETED_RETENTION)',
  })
  async create(@CurrentCaller() caller: UserInfo, @Body() body: CreateMemoryDto): Promise<CreatedMemoryDto> {
    const source = caller.conversationId ?? caller.sessionId ?? null;
    const { id, deduplicated, superseded, related } = await this.store.remember(caller.userId, {
      text: body.text,
      source,
      ...(body.kind ? { kind: body.kind } : {}),
      ...(body.key !== undefined ? { key: body.key } : {}),
      ...(body.validFrom ? { validFrom: body.validFrom } : {}),
      ...(body.replaces ? { replaces: body.replaces } : {}),
    });
    return { memory: await this.store.get(caller.userId, id), deduplicated, superseded, related };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change the text, kind, key or validFrom of one of your memories' })
  @ApiOkResponse({ type: MemoryDto })
  @ApiNotFoundResponse({ description: 'No such memory of yours' })
  @ApiConflictResponse({ description: 'Another current memory of yours says the same thing, or holds that key' })
  update(@CurrentCaller() caller: UserInfo, @Param('id', UuidParamPipe) id: string, @Body() body: UpdateMemoryDto): Promise<MemoryDto> {
    return this.store.update(caller.userId, id, changesOf(body));
  }

  /** Deleted memories are never listed or recalled again; the export shows them, marked, until they are purged (MEMORY_DELETED_RETENTION). */
  @Delete(':id')
  @ApiOperation({ summary: 'Delete one of your memories' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: 'No such memory of yours' })
  async remove(@CurrentCaller() caller: UserInfo, @Param('id', UuidParamPipe) id: string): Promise<void> {
    await this.store.softDelete(caller.userId, id);
  }
}
