import { Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidInputError, PayloadTooLargeError, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { FILES_OPTIONS, type FilesModuleOptions } from '../files.options.js';
import { FilesService } from '../files.service.js';
import { FileUploader } from '../upload/file-uploader.js';
import { FileListQueryDto, FilePageDto, FileViewDto, listQueryOf } from './file-view.dto.js';
import { sendFile } from './send-file.js';

/** The part of the multipart body that carries the file. */
export const FILE_FIELD = 'file';

/** The first file part of a multipart body; a body busboy cannot parse is the client's mistake (400), not ours. */
async function firstFilePart(request: FastifyRequest, maxBytes: number) {
  try {
    // One byte past the limit reaches the upload's meter, which refuses it; busboy would silently cut it instead.
    return await request.file({ limits: { fileSize: maxBytes + 1, files: 1, fieldSize: 1024 }, throwFileSizeLimit: false });
  } catch (error) {
    throw new InvalidInputError(`Malformed multipart/form-data body: ${error instanceof Error ? error.message : String(error)}`, { [FILE_FIELD]: 'unreadable' });
  }
}

/** The caller's own files. Another user's key answers 404, exactly like a missing one. */
@ApiTags('files')
@Controller('api/files')
@Authenticated()
export class FilesController {
  constructor(
    private readonly files: FilesService,
    private readonly uploader: FileUploader,
    @Inject(FILES_OPTIONS) private readonly options: FilesModuleOptions,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Upload a file (multipart/form-data, one part named "file"), streamed to storage; its text is read at once' })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', required: [FILE_FIELD], properties: { [FILE_FIELD]: { type: 'string', format: 'binary' } } } })
  @ApiCreatedResponse({ type: FileViewDto })
  @ApiPayloadTooLargeResponse({ description: 'Larger than FILES_MAX_BYTES, or over the quota FILES_MAX_TOTAL_BYTES_PER_USER; nothing is kept' })
  async upload(@CurrentCaller() caller: UserInfo, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<FileViewDto> {
    if (!request.isMultipart()) throw new InvalidInputError(`Expected multipart/form-data with a part named "${FILE_FIELD}"`, { [FILE_FIELD]: 'missing' });
    const part = await firstFilePart(request, this.options.maxBytes);
    if (!part || part.fieldname !== FILE_FIELD) {
      part?.file.resume();
      throw new InvalidInputError(`Expected one file part named "${FILE_FIELD}"`, { [FILE_FIELD]: 'missing' });
    }
    try {
      const file = await this.uploader.upload({ userId: caller.userId, body: part.file, filename: part.filename, declaredMime: part.mimetype });
      return FileViewDto.of(file);
    } catch (error) {
      // The rest of an oversized body is not worth reading: answer and close the connection.
      if (error instanceof PayloadTooLargeError) reply.header('connection', 'close');
      throw error;
    }
  }

  @Get()
  @ApiOperation({ summary: 'List your files: newest first or by name, optionally of one type' })
  @ApiOkResponse({ type: FilePageDto })
  async list(@CurrentCaller() caller: UserInfo, @Query() query: FileListQueryDto): Promise<FilePageDto> {
    const page = await this.files.list(caller.userId, listQueryOf(query));
    return { items: page.items.map(FileViewDto.of), nextCursor: page.nextCursor };
  }

  @Get(':key')
  @ApiOkResponse({ type: FileViewDto })
  @ApiNotFoundResponse({ description: 'No such file of yours' })
  async get(@CurrentCaller() caller: UserInfo, @Param('key') key: string): Promise<FileViewDto> {
    return FileViewDto.of(await this.files.get(caller.userId, key));
  }

  @Get(':key/content')
  @ApiOperation({ summary: 'Download the file (attachment; one byte range with Range: bytes=a-b)' })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The whole file' })
  @ApiNotFoundResponse({ description: 'No such file of yours' })
  async content(@CurrentCaller() caller: UserInfo, @Param('key') key: string, @Headers('range') range: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await sendFile(reply, this.files, await this.files.get(caller.userId, key), range);
  }

  @Delete(':key')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, stored object included' })
  @ApiNotFoundResponse({ description: 'No such file of yours' })
  async delete(@CurrentCaller() caller: UserInfo, @Param('key') key: string): Promise<void> {
    await this.files.delete(caller.userId, key);
  }
}
