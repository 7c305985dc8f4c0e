import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageQueryDto, Omittable } from '@app/common';
import { IsIn, Matches } from 'class-validator';
import type { StoredFileEntity } from '../entities/stored-file.entity.js';
import {
  EXTRACTION_FILTERS,
  MAX_TEXT_CHARS,
  type ExtractionFilter,
  type FileListQuery,
  type FileSort,
  type FileText,
  type OwnedFile,
} from '../files.service.js';

/** A file as REST shows it: never its storage location, never its owner's internal id. */
export class FileViewDto {
  @ApiProperty({ description: 'Random, opaque key of the file', example: 'q3xY0m3dZ0l1sN4l0Ng8aw' })
  fileKey: string;

  @ApiProperty({ description: 'The name it was uploaded under, sanitized; for display only' })
  filename: string;

  @ApiProperty({ description: 'Type detected from the content', example: 'application/pdf' })
  mime: string;

  @ApiProperty({ description: 'Size in bytes' })
  size: number;

  @ApiProperty({ description: 'SHA-256 of the content, hex' })
  sha256: string;

  @ApiProperty({ format: 'date-time' })
  uploadedAt: string;

  @ApiProperty({ description: '`done` (text was read), `none` (nothing to read), `pending`, or `failed: <reason>`', example: 'done' })
  extractionStatus: string;

  static of(file: StoredFileEntity): FileViewDto {
    return {
      fileKey: file.fileKey,
      filename: file.filename,
      mime: file.mime,
      size: file.size,
      sha256: file.sha256,
      uploadedAt: file.createdAt.toISOString(),
      extractionStatus: file.extractionStatus,
    };
  }
}

export class FilePageDto {
  @ApiProperty({ type: [FileViewDto] })
  items: FileViewDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last' })
  nextCursor: string | null;
}

export class FileListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['time', 'name'], default: 'time', description: '`time`: newest first; `name`: by filename' })
  @Omittable()
  @IsIn(['time', 'name'])
  sort?: FileSort;

  @ApiPropertyOptional({ description: 'Only files of this type (`application/pdf`) or family (`image/*`)', example: 'image/*' })
  @Omittable()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/(\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*)$/, {
    message: 'mime must be a type such as image/png or a family such as image/*',
  })
  mime?: string;
}

/** The service's query, with the defaults filled in. */
export function listQueryOf(query: FileListQueryDto): FileListQuery {
  return {
    limit: query.limit,
    sort: query.sort ?? 'time',
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
    ...(query.mime !== undefined ? { mime: query.mime } : {}),
  };
}

export class ErasedFilesDto {
  @ApiProperty({ description: 'How many files were deleted, objects included' })
  deleted: number;
}

export class FileTextDto implements FileText {
  @ApiProperty({ example: 'q3xY0m3dZ0l1sN4l0Ng8aw' }) fileKey: string;

  @ApiProperty({ description: '`done`, `none`, `pending`, or `failed: <reason>`', example: 'done' }) extractionStatus: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: `The text read out of the file, at most ${MAX_TEXT_CHARS} characters; null when there is none (yet)`,
  })
  text: string | null;

  @ApiProperty({ description: `True when the text goes on past the ${MAX_TEXT_CHARS} characters answered` }) truncated: boolean;
}

/** A file of any user's, with its owner: the admin list across users. */
export class AdminFileViewDto extends FileViewDto {
  @ApiProperty({ format: 'uuid' }) ownerUserId: string;

  @ApiProperty({ type: String, nullable: true }) ownerEmail: string | null;

  static ofOwned({ file, ownerEmail }: OwnedFile): AdminFileViewDto {
    return { ...FileViewDto.of(file), ownerUserId: file.userId, ownerEmail };
  }
}

export class AdminFilePageDto {
  @ApiProperty({ type: [AdminFileViewDto], description: 'Newest first' }) items: AdminFileViewDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last' }) nextCursor: string | null;
}

export class AdminFileListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    enum: EXTRACTION_FILTERS,
    description: 'Only the files whose text extraction is in this state (`failed`: every `failed: <reason>`)',
  })
  @Omittable()
  @IsIn(EXTRACTION_FILTERS, { message: `extraction must be one of ${EXTRACTION_FILTERS.join(', ')}` })
  extraction?: ExtractionFilter;
}
