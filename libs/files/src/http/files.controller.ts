import { isUtf8 } from 'node:buffer';
import { Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res, UnsupportedMediaTypeException } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { FastifyMultipartBaseOptions, Multipart } from '@fastify/multipart';
import { parse as parseContentDisposition } from 'content-disposition';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiTag, InvalidInputError, LengthRequiredError, PayloadTooLargeError, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { ExtractionRuns } from '../extraction/extraction-runs.js';
import { FILES_OPTIONS, type FilesModuleOptions } from '../files.options.js';
import { FilesService, MAX_TEXT_CHARS } from '../files.service.js';
import { FileUploader, type UploadRequest } from '../upload/file-uploader.js';
import { mediaTypeOf } from '../upload/media-type.js';
import { FileListQueryDto, FilePageDto, FileTextDto, FileViewDto, listQueryOf } from './file-view.dto.js';
import { rerunExtraction } from './rerun-extraction.js';
import { sendFile } from './send-file.js';

/** The part of the multipart body that carries the file. */
export const FILE_FIELD = 'file';

/**
 * The parts of a multipart body one at a time (`undefined` after the last); a body busboy cannot
 * parse is the client's mistake (400), not ours. Two file parts are let through, so that a second
 * one is refused by its name rather than dropped by busboy's limit.
 */
function multipartParts(request: FastifyRequest, maxBytes: number): () => Promise<Multipart | undefined> {
  // One byte past the limit reaches the upload's meter, which refuses it; busboy would silently cut it instead.
  // (`parts` takes the stream options too; its type leaves them out.)
  const options: FastifyMultipartBaseOptions = { limits: { fileSize: maxBytes + 1, files: 2, fieldSize: 1024 }, throwFileSizeLimit: false };
  const parts = request.parts(options);
  return async () => {
    try {
      const next = await parts.next();
      return next.done ? undefined : next.value;
    } catch (error) {
      throw new InvalidInputError(`Malformed multipart/form-data body: ${error instanceof Error ? error.message : String(error)}`, {
        [FILE_FIELD]: 'unreadable',
      });
    }
  };
}

/** How an error names a part of a multipart body. */
function describePart(part: Multipart): string {
  return `a ${part.type === 'file' ? 'file part' : 'field'} named "${part.fieldname}"`;
}

/** The media type of a raw upload's body, which Fastify leaves unread for the route (see register-file-uploads.ts). */
export const RAW_UPLOAD_TYPE = 'application/octet-stream';

/** The name a raw upload gives its file: `Content-Disposition: attachment; filename="…"` (or `filename*=UTF-8''…`). */
function rawUploadFilename(header: string | undefined): string {
  const expected = `Name the file with a Content-Disposition header: attachment; filename="report.pdf" (filename*=UTF-8''… for other characters)`;
  if (!header) throw new InvalidInputError(expected, { 'content-disposition': 'missing' });
  let parameters: Record<string, string | undefined>;
  try {
    parameters = parseContentDisposition(header).parameters;
  } catch (error) {
    throw new InvalidInputError(`Malformed Content-Disposition header (${error instanceof Error ? error.message : String(error)}). ${expected}`, {
      'content-disposition': 'malformed',
    });
  }
  const filename = parameters.filename;
  if (!filename && parameters['filename*'])
    throw new InvalidInputError(`The Content-Disposition header's filename* is not UTF-8 once percent-decoded. ${expected}`, {
      'content-disposition': 'filename* not UTF-8',
    });
  if (!filename) throw new InvalidInputError(`The Content-Disposition header names no file. ${expected}`, { 'content-disposition': 'no filename' });
  return parameters['filename*'] ? filename : fromHeaderBytes(filename);
}

/**
 * A `filename="…"` as sent. Node reads header bytes as ISO-8859-1, which RFC 6266 prescribes for
 * it; but curl and scripts send the terminal's UTF-8 bytes there, and `café` became `cafÃ©`. Bytes
 * that form UTF-8 are read as UTF-8 (ISO-8859-1 text beyond ASCII almost never does).
 */
function fromHeaderBytes(value: string): string {
  // Only single-byte characters, some beyond ASCII, can be UTF-8 read byte by byte.
  if (!/[\x80-\xff]/.test(value) || /[\u0100-\uffff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
}

/** Refuses a raw upload whose Content-Type is not application/octet-stream, read as any upload's declared type is. */
function requireRawUploadType(header: string | undefined): void {
  const type = mediaTypeOf(header);
  if (type === RAW_UPLOAD_TYPE) return;
  const expected = `Send the file as ${RAW_UPLOAD_TYPE} (or as multipart/form-data to POST /api/files)`;
  throw new UnsupportedMediaTypeException(header && !type ? `The Content-Type header is not a media type (RFC 9110). ${expected}` : expected);
}

/** The body's size from Content-Length (Node has already refused a malformed one); a body of unknown size is refused. */
function rawUploadSize(request: FastifyRequest): number {
  const header = request.headers['content-length'];
  if (header === undefined) throw new LengthRequiredError('Send the file with a Content-Length header (its size in bytes); chunked bodies are not taken');
  return Number(header);
}

/** The caller's own files. Another user's key answers 404, exactly like a missing one. */
@ApiTag('files')
@Controller('api/files')
@Authenticated()
export class FilesController {
  constructor(
    private readonly files: FilesService,
    private readonly uploader: FileUploader,
    private readonly extractions: ExtractionRuns,
    @Inject(FILES_OPTIONS) private readonly options: FilesModuleOptions,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Upload a file as multipart/form-data',
    description: 'One part named "file", streamed to storage as it arrives; its text is read at once.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', required: [FILE_FIELD], properties: { [FILE_FIELD]: { type: 'string', format: 'binary' } } } })
  @ApiCreatedResponse({ type: FileViewDto })
  @ApiPayloadTooLargeResponse({ description: 'Larger than FILES_MAX_BYTES, or over the quota FILES_MAX_TOTAL_BYTES_PER_USER; nothing is kept' })
  async upload(@CurrentCaller() caller: UserInfo, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<FileViewDto> {
    if (!request.isMultipart()) throw new InvalidInputError(`Expected multipart/form-data with a part named "${FILE_FIELD}"`, { [FILE_FIELD]: 'missing' });
    const nextPart = multipartParts(request, this.options.maxBytes);
    const part = await nextPart();
    if (!part) throw new InvalidInputError(`Expected one file part named "${FILE_FIELD}"`, { [FILE_FIELD]: 'missing' });
    if (part.type !== 'file' || part.fieldname !== FILE_FIELD) {
      if (part.type === 'file') part.file.resume();
      throw new InvalidInputError(
        `Expected one file part named "${FILE_FIELD}" (with a filename) and nothing else; the body starts with ${describePart(part)}`,
        part.fieldname === FILE_FIELD ? { [FILE_FIELD]: 'not a file' } : { [FILE_FIELD]: 'missing', [part.fieldname]: 'unexpected' },
      );
    }
    const stored = await this.store(reply, { userId: caller.userId, body: part.file, filename: part.filename, declaredMime: part.mimetype });
    // What follows the file is known only once the file is stored; anything there (another part, a
    // body cut short) undoes the upload, so no part is ever dropped unseen.
    try {
      const extra = await nextPart();
      if (!extra) return stored;
      if (extra.type === 'file') extra.file.resume();
      throw new InvalidInputError(`Send one part only, the file named "${FILE_FIELD}"; this body also has ${describePart(extra)}; nothing was kept`, {
        [extra.fieldname]: 'unexpected',
      });
    } catch (error) {
      await this.files.delete(caller.userId, stored.fileKey);
      throw error;
    }
  }

  @Post('raw')
  @ApiOperation({
    summary: 'Upload a file as the raw request body, named by Content-Disposition',
    description:
      'The body (application/octet-stream) is streamed to storage as it arrives, with no multipart parsing; the checks of the multipart route apply. Content-Length is required, and one over the limit or the quota is refused before the body is read.',
  })
  @ApiConsumes(RAW_UPLOAD_TYPE)
  @ApiHeader({
    name: 'content-disposition',
    required: true,
    description: `attachment; filename="report.pdf" (filename*=UTF-8''… for other characters); kept for display only`,
  })
  @ApiHeader({ name: 'content-length', required: true, description: 'The size of the file in bytes' })
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiCreatedResponse({ type: FileViewDto })
  @ApiBadRequestResponse({ description: 'No filename in Content-Disposition, or a body cut short' })
  @ApiResponse({ status: 411, description: 'No Content-Length (a chunked body)' })
  @ApiPayloadTooLargeResponse({ description: 'Larger than FILES_MAX_BYTES, or over the quota FILES_MAX_TOTAL_BYTES_PER_USER; nothing is kept' })
  @ApiUnsupportedMediaTypeResponse({ description: `A body that is not ${RAW_UPLOAD_TYPE}` })
  async uploadRaw(
    @CurrentCaller() caller: UserInfo,
    @Req() request: FastifyRequest,
    @Headers('content-disposition') disposition: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<FileViewDto> {
    let upload: UploadRequest;
    try {
      requireRawUploadType(request.headers['content-type']);
      upload = { userId: caller.userId, body: request.raw, filename: rawUploadFilename(disposition), declaredSize: rawUploadSize(request) };
    } catch (error) {
      // Refused before a byte of the body was read: answer and close rather than read it all to keep the connection.
      reply.header('connection', 'close');
      throw error;
    }
    return this.store(reply, upload);
  }

  private async store(reply: FastifyReply, upload: UploadRequest): Promise<FileViewDto> {
    try {
      return FileViewDto.of(await this.uploader.upload(upload));
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
  @ApiOperation({ summary: 'Describe one of your files, without its content' })
  @ApiOkResponse({ type: FileViewDto })
  @ApiNotFoundResponse({ description: 'No such file of yours' })
  async get(@CurrentCaller() caller: UserInfo, @Param('key') key: string): Promise<FileViewDto> {
    return FileViewDto.of(await this.files.get(caller.userId, key));
  }

  @Get(':key/content')
  @ApiOperation({
    summary: 'Download one of your files',
    description:
      'As an attachment, or inline for a PNG, JPEG, GIF, WebP, AVIF or BMP image (so that `<img>` can show it; never SVG or HTML); one byte range with `Range: bytes=a-b`.',
    operationId: 'files_download',
  })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The whole file' })
  @ApiNotFoundResponse({ description: 'No such file of yours' })
  async content(
    @CurrentCaller() caller: UserInfo,
    @Param('key') key: string,
    @Headers('range') range: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await sendFile(reply, this.files, await this.files.get(caller.userId, key), range, { inlineImages: true });
  }

  @Get(':key/text')
  @ApiOperation({
    summary: 'Read the text extracted from one of your files',
    description: `At most ${MAX_TEXT_CHARS} characters; \`truncated\` says when there is more.`,
  })
  @ApiOkResponse({ type: FileTextDto })
  @ApiNotFoundResponse({ description: 'No such file of yours' })
  readText(@CurrentCaller() caller: UserInfo, @Param('key') key: string): Promise<FileTextDto> {
    return this.files.text(caller.userId, key);
  }

  @Post(':key/extraction')
  @ApiOperation({
    summary: 'Extract the text of one of your files again',
    description:
      'For a file whose extraction failed or never finished, or to read it again: its old text is dropped. 200 with the new status when the run ends within 2 s; else 202 with `pending` while it goes on (poll GET /api/files/{key}). A run already under way is not started twice: 202 `pending`.',
  })
  @ApiOkResponse({ type: FileViewDto, description: 'The run ended: its status (`done`, `none` or `failed: <reason>`)' })
  @ApiAcceptedResponse({ type: FileViewDto, description: 'The run goes on in the background (`pending`)' })
  @ApiNotFoundResponse({ description: 'No such file of yours' })
  rerunExtraction(@CurrentCaller() caller: UserInfo, @Param('key') key: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<FileViewDto> {
    return rerunExtraction(this.files, this.extractions, caller.userId, key, reply);
  }

  @Delete(':key')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete one of your files, stored object included' })
  @ApiNoContentResponse({ description: 'Deleted, stored object included' })
  @ApiNotFoundResponse({ description: 'No such file of yours' })
  async delete(@CurrentCaller() caller: UserInfo, @Param('key') key: string): Promise<void> {
    await this.files.delete(caller.userId, key);
  }
}
