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
import { ApiTag, UuidParamPipe, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { MemoryStore } from '../memory.store.js';
import { CreatedMemoryDto, CreateMemoryDto, ListMemoriesQueryDto, MemoryDto, MemoryExportDto, MemoryPageDto, UpdateMemoryDto } from './memory.dto.js';
import { changesOf, listOrSearch } from './memory-listing.js';

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

  /** Newest first by pages; with `q`, a search (the recall tool's retrieval), best first, in one page. */
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

  /** Stores a memory; the same sentence again (other case, spacing, width) refreshes the first one instead. */
  @Post()
  @ApiOperation({ summary: 'Store a memory; the same sentence again refreshes the first one' })
  @ApiCreatedResponse({ type: CreatedMemoryDto })
  @ApiConflictResponse({
    description: 'You keep MEMORY_MAX_PER_USER memories, or hold twice that many with the deleted ones not yet purged (MEMORY_DELETED_RETENTION)',
  })
  async create(@CurrentCaller() caller: UserInfo, @Body() body: CreateMemoryDto): Promise<CreatedMemoryDto> {
    const source = caller.conversationId ?? caller.sessionId ?? null;
    const { id, deduplicated } = await this.store.remember(caller.userId, { text: body.text, ...(body.kind ? { kind: body.kind } : {}), source });
    return { memory: await this.store.get(caller.userId, id), deduplicated };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change the text or kind of one of your memories' })
  @ApiOkResponse({ type: MemoryDto })
  @ApiNotFoundResponse({ description: 'No such memory of yours' })
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
