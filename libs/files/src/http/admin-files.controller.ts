import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, UuidParamPipe, type UserInfo } from '@app/common';
import { AdminOnly, AdminUsers, CurrentCaller } from '@app/auth';
import { FilesService } from '../files.service.js';
import { ErasedFilesDto, FileListQueryDto, FilePageDto, FileViewDto, listQueryOf } from './file-view.dto.js';

/** Administrators' view of one user's files; each call is on the audit trail. */
@ApiTag('admin')
@Controller('admin/users/:userId/files')
@AdminOnly()
export class AdminFilesController {
  constructor(
    private readonly files: FilesService,
    private readonly admins: AdminUsers,
  ) {}

  @Get()
  @ApiOperation({ summary: "List a user's files" })
  @ApiOkResponse({ type: FilePageDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  async list(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string, @Query() query: FileListQueryDto): Promise<FilePageDto> {
    await this.admins.audited(admin, userId, 'files.view');
    const page = await this.files.list(userId, listQueryOf(query));
    return { items: page.items.map(FileViewDto.of), nextCursor: page.nextCursor };
  }

  @Delete(':key')
  @HttpCode(204)
  @ApiOperation({ summary: "Delete one of a user's files, stored object included" })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: 'No such user, or the user has no such file' })
  async deleteOne(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string, @Param('key') key: string): Promise<void> {
    await this.admins.audited(admin, userId, 'files.delete', { fileKey: key });
    await this.files.delete(userId, key);
  }

  @Delete()
  @ApiOperation({ summary: "Erase all of a user's files and their stored objects" })
  @ApiOkResponse({ type: ErasedFilesDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  async eraseAll(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string): Promise<ErasedFilesDto> {
    await this.admins.audited(admin, userId, 'files.erase_all');
    return { deleted: await this.files.eraseAll(userId) };
  }
}
