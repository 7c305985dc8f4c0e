import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsNotEmpty, IsString, IsUUID, MaxDate, MaxLength, MinDate } from 'class-validator';
import { invalidRequest, Omittable, PageQueryDto, readIsoDateTime } from '@app/common';
import type { AuditFilter } from './admin-audit.service.js';

/** The instants PostgreSQL and an ISO string both hold: year 0 and year 10000 would be a database error, not the caller's. */
const FIRST_INSTANT = new Date('0001-01-01T00:00:00Z');
const LAST_INSTANT = new Date('9999-12-31T23:59:59.999Z');
const MAX_TEXT = 320;

/** `?actor=&action=&target=&from=&to=` of `GET /admin/audit` and its CSV export. */
export class AuditQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    maxLength: MAX_TEXT,
    description: "A user id: the entries that admin made. Any other text: the entries whose actor's e-mail contains it (case-insensitive)",
  })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  actor?: string;

  @ApiPropertyOptional({ maxLength: 100, description: 'One action (`user.erase`), or every action of an area with `.*` (`memories.*`)', example: 'memories.*' })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  action?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only the entries about this user' })
  @Omittable()
  @IsUUID('all', { message: 'target must be a UUID' })
  target?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'From this instant (inclusive): ISO 8601 with a time zone',
    example: '2026-01-01T00:00:00Z',
  })
  @Omittable()
  @Transform(({ obj }: { obj: { from?: unknown } }) => instantOf(obj.from), { toClassOnly: true })
  @IsDate({ message: ({ value }) => `from ${instantProblem(value)}` })
  @MinDate(FIRST_INSTANT, { message: 'from must be in the year 1 or later' })
  @MaxDate(LAST_INSTANT, { message: 'from must be before the year 10000' })
  from?: Date;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'Until this instant (exclusive): ISO 8601 with a time zone',
    example: '2026-02-01T00:00:00Z',
  })
  @Omittable()
  @Transform(({ obj }: { obj: { to?: unknown } }) => instantOf(obj.to), { toClassOnly: true })
  @IsDate({ message: ({ value }) => `to ${instantProblem(value)}` })
  @MinDate(FIRST_INSTANT, { message: 'to must be in the year 1 or later' })
  @MaxDate(LAST_INSTANT, { message: 'to must be before the year 10000' })
  to?: Date;
}

/** The export's query: the list's filters, without paging (the export holds every entry they select). */
export class AuditExportQueryDto extends OmitType(AuditQueryDto, ['limit', 'cursor'] as const) {}

/** The service's filter from a checked query; a range that ends before it starts is a 400, not an empty list. */
export function auditFilterOf({ actor, action, target, from, to }: AuditExportQueryDto): AuditFilter {
  if (from && to && from > to) throw invalidRequest({ from: 'must not be after to' });
  return { ...(actor ? { actor } : {}), ...(action ? { action } : {}), ...(target ? { target } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/**
 * A date-time with its zone becomes a `Date` (a local time would mean different instants on
 * different servers); anything else stays as sent, for `@IsDate` to refuse naming its problem.
 */
function instantOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const read = readIsoDateTime(value, ['moment']);
  return 'problem' in read ? value : read.start;
}

function instantProblem(sent: unknown): string {
  const read = typeof sent === 'string' ? readIsoDateTime(sent, ['moment']) : undefined;
  return read && 'problem' in read ? read.problem : 'must be an ISO 8601 date-time with a time zone such as 2026-01-05T10:00:00Z';
}

export class AuditEntryDto {
  @ApiProperty() id: string;
  @ApiProperty({ format: 'uuid' }) actorId: string;
  @ApiProperty({ type: String, nullable: true }) actorEmail: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '203.0.113.7',
    description: "The address the admin's request came from (behind a reverse proxy, as TRUST_PROXY lets it be read); null on entries older than the field",
  })
  actorAddress: string | null;
  @ApiProperty({ example: 'user.disable' }) action: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) targetUserId: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The target's e-mail now; null without a target, an address, or once the user is erased" })
  targetEmail: string | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true }) detail: Record<string, unknown> | null;
  @ApiProperty({ type: String, format: 'date-time' }) at: Date;
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryDto] }) items: AuditEntryDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}
