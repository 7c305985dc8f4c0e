import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { PageQueryDto, Omittable } from '@app/common';
import { MEMORY_KINDS, type MemoryKind } from '../memory.options.js';
import { MAX_RECALL_QUERY_CHARS } from '../memory.store.js';

export class MemoryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() text: string;
  @ApiProperty({ enum: MEMORY_KINDS }) kind: MemoryKind;
  @ApiProperty({ type: String, nullable: true, description: 'The MCP session or conversation it was told in, when known' }) source: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time', description: 'Last stored or refreshed (a duplicate refreshes it)' }) updatedAt: Date;
}

export class ExportedMemoryDto extends MemoryDto {
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Set when the user deleted it: kept until MEMORY_DELETED_RETENTION has passed, never recalled',
  })
  deletedAt: Date | null;
}

export class MemoryHitDto extends MemoryDto {
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Relevance in [0, 1], higher is better (see docs/memory.md)' }) score: number;
}

export class MemoryPageDto {
  @ApiProperty({ type: [MemoryHitDto], description: 'Newest first; with `q`, best first and each with a `score`' }) items: (MemoryDto | MemoryHitDto)[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; always null for a search' }) nextCursor: string | null;
}

export class ListMemoriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    description: 'Search text: the same retrieval as the recall_memory tool; answers one page of at most 50, best first',
    maxLength: MAX_RECALL_QUERY_CHARS,
  })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_RECALL_QUERY_CHARS)
  q?: string;

  @ApiPropertyOptional({ enum: MEMORY_KINDS })
  @Omittable()
  @IsIn(MEMORY_KINDS, { message: `kind must be one of ${MEMORY_KINDS.join(', ')}` })
  kind?: MemoryKind;
}

export class CreateMemoryDto {
  @ApiProperty({ description: 'One self-contained sentence, e.g. "I am allergic to peanuts"; at most MEMORY_MAX_TEXT_CHARS characters' })
  @IsString()
  @IsNotEmpty()
  text: string;

  @ApiPropertyOptional({ enum: MEMORY_KINDS, default: 'fact' })
  @Omittable()
  @IsIn(MEMORY_KINDS, { message: `kind must be one of ${MEMORY_KINDS.join(', ')}` })
  kind?: MemoryKind;
}

export class UpdateMemoryDto {
  @ApiPropertyOptional({ description: 'The new text' })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  text?: string;

  @ApiPropertyOptional({ enum: MEMORY_KINDS })
  @Omittable()
  @IsIn(MEMORY_KINDS, { message: `kind must be one of ${MEMORY_KINDS.join(', ')}` })
  kind?: MemoryKind;
}

export class CreatedMemoryDto {
  @ApiProperty({ type: MemoryDto }) memory: MemoryDto;
  @ApiProperty({ description: 'True when the text equalled a memory you already had, which was refreshed instead' }) deduplicated: boolean;
}

export class MemoryExportDto {
  @ApiProperty({ type: [ExportedMemoryDto], description: 'Every memory held about you, oldest first, deleted ones included (marked)' })
  memories: ExportedMemoryDto[];
}

export class ErasedMemoriesDto {
  @ApiProperty({ description: 'How many memories were erased' }) erased: number;
}
