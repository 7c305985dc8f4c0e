import { Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiTag, UuidParamPipe, type UserInfo } from '@app/common';
import { AdminOnly, AdminUsers, CurrentCaller } from '@app/auth';
import { ExtractionRuns } from '../extraction/extraction-runs.js';
import { FilesService } from '../files.service.js';
import { ErasedFilesDto, FileListQueryDto, FilePageDto, FileTextDto, FileViewDto, listQueryOf } from './file-view.dto.js';
import { rerunExtraction } from './rerun-extraction.js';
import { sendFile } from './send-file.js';

/** Administrators' view of one user's files, with what the user's own routes offer; each call is on the audit trail. */
@ApiTag('admin')
@Controller('admin/users/:userId/files')
@AdminOnly()
export class AdminFilesController {
  constructor(
    private readonly files: FilesService,
    private readonly extractions: ExtractionRuns,
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

  @Get(':key')
  @ApiOperation({ summary: "Describe one of a user's files, without its content" })
  @ApiOkResponse({ type: FileViewDto })
  @ApiNotFoundResponse({ description: 'No such user, or the user has no such file' })
  async get(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string, @Param('key') key: string): Promise<FileViewDto> {
    await this.admins.audited(admin, userId, 'files.read', { fileKey: key });
    return FileViewDto.of(await this.files.get(userId, key));
  }

  @Get(':key/content')
  @ApiOperation({
    summary: "Download one of a user's files",
    description: "As the user's own download answers it, Range included.",
    operationId: 'adminFiles_download',
  })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The whole file' })
  @ApiNotFoundResponse({ description: 'No such user, or the user has no such file' })
  async content(
    @CurrentCaller() admin: UserInfo,
    @Param('userId', UuidParamPipe) userId: string,
    @Param('key') key: string,
    @Headers('range') range: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.admins.audited(admin, userId, 'files.download', { fileKey: key, ...(range ? { range } : {}) });
    await sendFile(reply, this.files, await this.files.get(userId, key), range, { inlineImages: true });
  }

  @Get(':key/text')
  @ApiOperation({ summary: "Read the text extracted from one of a user's files" })
  @ApiOkResponse({ type: FileTextDto })
  @ApiNotFoundResponse({ description: 'No such user, or the user has no such file' })
  async readText(@CurrentCaller() admin: UserInfo, @Param('userId', UuidParamPipe) userId: string, @Param('key') key: string): Promise<FileTextDto> {
    await this.admins.audited(admin, userId, 'files.read', { fileKey: key, part: 'text' });
    return this.files.text(userId, key);
  }

  @Post(':key/extraction')
  @ApiOperation({
    summary: "Extract the text of one of a user's files again",
    description: "As the user's own route does: 200 when it ended within 2 s, else 202.",
  })
  @ApiOkResponse({ type: FileViewDto, description: 'The run ended: its status' })
  @ApiAcceptedResponse({ type: FileViewDto, description: 'The run goes on in the background (`pending`)' })
  @ApiNotFoundResponse({ description: 'No such user, or the user has no such file' })
  async rerunExtraction(
    @CurrentCaller() admin: UserInfo,
    @Param('userId', UuidParamPipe) userId: string,
    @Param('key') key: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<FileViewDto> {
    await this.admins.audited(admin, userId, 'files.extract', { fileKey: key });
    return rerunExtraction(this.files, this.extractions, userId, key, reply);
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
