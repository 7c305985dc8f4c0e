import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsDate, IsIn, IsNotEmpty, IsString, IsUUID, MaxLength, ValidateIf } from 'class-validator';
import { PageQueryDto, Omittable } from '@app/common';
import { MEMORY_KINDS, type MemoryKind } from '../memory.options.js';
import { MAX_IDS_PER_CALL, MAX_KEY_CHARS } from '../memory-input.js';
import { MAX_RECALL_QUERY_CHARS } from '../memory.store.js';
import { readMemoryTime } from '../validity/memory-validity.js';

const TIME_DESCRIPTION = 'ISO 8601: a date-time with its time zone, or a date, month or year standing for its first instant (00:00 UTC)';

/** A date or date-time (`readMemoryTime`) becomes a `Date`; anything else stays as sent, for `@IsDate` to refuse naming its problem. */
const timeOf = (sent: unknown): unknown => {
  if (typeof sent !== 'string') return sent;
  const read = readMemoryTime(sent);
  return read instanceof Date ? read : sent;
};
const timeProblem = (sent: unknown): string => {
  const read = typeof sent === 'string' ? readMemoryTime(sent) : undefined;
  return read && !(read instanceof Date) ? read.problem : `must be ${TIME_DESCRIPTION}`;
};

const booleanOf = (sent: unknown): unknown => (sent === 'true' ? true : sent === 'false' ? false : sent);

export class MemoryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() text: string;
  @ApiProperty({ enum: MEMORY_KINDS }) kind: MemoryKind;
  @ApiProperty({ type: String, nullable: true, description: 'The MCP session or conversation it was told in, when known' }) source: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time', description: 'Last stored or refreshed (a duplicate refreshes it)' }) updatedAt: Date;
  @ApiProperty({ type: String, nullable: true, description: 'A short normalized slot ("home city"): a new memory with the key of a current one supersedes it' })
  key: string | null;
  @ApiProperty({ type: String, format: 'date-time', description: 'When the fact became true: when it was stored, unless the user said otherwise' })
  validFrom: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it stopped being true: null while it is current' })
  validTo: Date | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The memory that superseded it (see GET /api/memories/{id}/history)' })
  supersededBy: string | null;
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

export class MemoryHistoryDto {
  @ApiProperty({ type: [MemoryDto], description: 'The versions of the fact, newest validFrom first: the current one, then those it superseded' })
  items: MemoryDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page' }) nextCursor: string | null;
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

  @ApiPropertyOptional({
    type: String,
    description: `The memories valid at this instant instead of the current ones: ${TIME_DESCRIPTION}`,
    example: '2025-01-01',
  })
  @Omittable()
  @Transform(({ obj }: { obj: { asOf?: unknown } }) => timeOf(obj.asOf), { toClassOnly: true })
  @IsDate({ message: ({ value }) => `asOf ${timeProblem(value)}` })
  asOf?: Date;

  @ApiPropertyOptional({ type: Boolean, description: '`true`: superseded memories too, each with its validity and successor' })
  @Omittable()
  // A query string holds text: only the two words are read as booleans, anything else is refused by name.
  @Transform(({ obj }: { obj: { includeHistory?: unknown } }) => booleanOf(obj.includeHistory), { toClassOnly: true })
  @IsBoolean({ message: 'includeHistory must be true or false' })
  includeHistory?: boolean;
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

  @ApiPropertyOptional({
    maxLength: MAX_KEY_CHARS,
    description: 'A short slot ("home city"): the current memory with this key is superseded',
    example: 'home city',
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_KEY_CHARS)
  key?: string;

  @ApiPropertyOptional({ type: String, description: `When the fact became true (default: now): ${TIME_DESCRIPTION}`, example: '2025-06-01' })
  @Omittable()
  @Transform(({ obj }: { obj: { validFrom?: unknown } }) => timeOf(obj.validFrom), { toClassOnly: true })
  @IsDate({ message: ({ value }) => `validFrom ${timeProblem(value)}` })
  validFrom?: Date;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: MAX_IDS_PER_CALL,
    description: 'Ids of your current memories this one corrects or updates: each is superseded (kept, its validity ended)',
  })
  @Omittable()
  @IsArray()
  @ArrayMaxSize(MAX_IDS_PER_CALL)
  @IsUUID('all', { each: true, message: 'replaces must hold memory ids (UUIDs)' })
  replaces?: string[];
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

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_KEY_CHARS, description: 'A new key; null removes it' })
  @Omittable()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(MAX_KEY_CHARS)
  key?: string | null;

  @ApiPropertyOptional({ type: String, description: `When the fact became true; the memories it superseded then held until it. ${TIME_DESCRIPTION}` })
  @Omittable()
  @Transform(({ obj }: { obj: { validFrom?: unknown } }) => timeOf(obj.validFrom), { toClassOnly: true })
  @IsDate({ message: ({ value }) => `validFrom ${timeProblem(value)}` })
  validFrom?: Date;
}

export class MemoryMentionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() text: string;
  @ApiProperty({ type: String, nullable: true }) key: string | null;
}

export class CreatedMemoryDto {
  @ApiProperty({ type: MemoryDto }) memory: MemoryDto;
  @ApiProperty({ description: 'True when the text equalled a current memory of yours, which was refreshed instead' }) deduplicated: boolean;
  @ApiProperty({ type: [MemoryMentionDto], description: 'The memories it superseded (by replaces or key): kept, their validity ended' })
  superseded: MemoryMentionDto[];
  @ApiProperty({ type: [MemoryMentionDto], description: 'Up to three current memories close to it: one may be the same fact with an older value' })
  related: MemoryMentionDto[];
}

export class MemoryExportDto {
  @ApiProperty({ type: [ExportedMemoryDto], description: 'Every memory held about you, oldest first, deleted and superseded ones included (marked)' })
  memories: ExportedMemoryDto[];
}

export class ErasedMemoriesDto {
  @ApiProperty({ description: 'How many memories were erased' }) erased: number;
}
