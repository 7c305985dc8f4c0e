import { Injectable } from '@nestjs/common';
import { FILE_NOT_FOUND, FilesService, modelMime, type FileForModel } from '@app/files';
import { Arg, CurrentUser, fail, McpTool, McpToolContext, ok, ToolContext, type ToolResult, type UserInfo } from '@app/mcp';
import { NotFoundError } from '@app/common';

/** At most this many files in `list_files`; the model is told when there are more. */
export const LIST_FILES_MAX = 100;

export interface ListedFile {
  filename: string;
  file_key: string;
  mime: string;
  uploaded_at: string;
}

export interface FileList {
  files: ListedFile[];
  /** Present when the caller has more files than were listed. */
  note?: string;
}

/** The model's view of the caller's uploads: list them, read one (text inline, else a signed link). */
@Injectable()
export class FilesToolsService {
  constructor(private readonly files: FilesService) {}

  /**
   * List the files the user has uploaded, newest first (at most 100): filename, file_key, mime and
   * upload time. A file whose text was extracted at upload (PDF, Word, scans, images) is listed as
   * text/plain. Pass a file_key to read_file to read it.
   */
  @McpTool({
    scopes: ['files:read'],
    annotations: { title: 'List files', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  async listFiles(@CurrentUser() user: UserInfo): Promise<ToolResult<FileList>> {
    const newest = await this.files.recent(user.userId, LIST_FILES_MAX + 1);
    const files = newest.slice(0, LIST_FILES_MAX).map((file) => ({
      filename: file.filename,
      file_key: file.fileKey,
      mime: file.extractionStatus === 'done' ? modelMime(file.mime) : file.mime,
      uploaded_at: file.createdAt.toISOString(),
    }));
    const more = newest.length > LIST_FILES_MAX;
    return ok({ files, ...(more ? { note: `Only the ${LIST_FILES_MAX} newest files are listed; the user has more (see GET /api/files for all).` } : {}) });
  }

  /**
   * Read one of the user's uploaded files by its file_key (from list_files). Text files and files
   * with extracted text return { filename, mime, content } (long text is cut, with a note); other
   * files return { filename, mime, url, note } with a temporary download link.
   */
  @McpTool({
    scopes: ['files:read'],
    annotations: { title: 'Read file', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    // A file whose text is still being extracted (a long scan's OCR) is read once it is, as a task for clients that support tasks.
    task: 'optional',
  })
  async readFile(
    @CurrentUser() user: UserInfo,
    @Arg('file_key', { description: 'The file_key of the file, as list_files gives it', schema: { minLength: 1, maxLength: 100 } }) fileKey: string,
    @ToolContext() context: McpToolContext,
  ): Promise<ToolResult<FileForModel>> {
    try {
      return ok(await this.files.readForModel(user.userId, fileKey, context.mayBecomeTask ? context.signal : undefined));
    } catch (error) {
      if (error instanceof NotFoundError) return fail(FILE_NOT_FOUND);
      throw error;
    }
  }
}
