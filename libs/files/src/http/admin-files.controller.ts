import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '@app/auth';
import { FilesService } from '../files.service.js';
import { ErasedFilesDto, FileListQueryDto, FilePageDto, FileViewDto, listQueryOf } from './file-view.dto.js';

/** Administrators' view of one user's files. */
@ApiTags('admin')
@Controller('admin/users/:userId/files')
@AdminOnly()
export class AdminFilesController {
  constructor(private readonly files: FilesService) {}

  @Get()
  @ApiOperation({ summary: "List a user's files" })
  @ApiOkResponse({ type: FilePageDto })
  async list(@Param('userId', ParseUUIDPipe) userId: string, @Query() query: FileListQueryDto): Promise<FilePageDto> {
    const page = await this.files.list(userId, listQueryOf(query));
    return { items: page.items.map(FileViewDto.of), nextCursor: page.nextCursor };
  }

  @Delete(':key')
  @HttpCode(204)
  @ApiOperation({ summary: "Delete one of a user's files, stored object included" })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: 'The user has no such file' })
  async deleteOne(@Param('userId', ParseUUIDPipe) userId: string, @Param('key') key: string): Promise<void> {
    await this.files.delete(userId, key);
  }

  @Delete()
  @ApiOperation({ summary: "Erase all of a user's files and their stored objects" })
  @ApiOkResponse({ type: ErasedFilesDto })
  async eraseAll(@Param('userId', ParseUUIDPipe) userId: string): Promise<ErasedFilesDto> {
    return { deleted: await this.files.eraseAll(userId) };
  }
}
