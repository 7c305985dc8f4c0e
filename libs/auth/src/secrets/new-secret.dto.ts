import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsNotEmpty, IsString, Matches, MaxDate, MaxLength, MinDate } from 'class-validator';
import { Omittable } from '@app/common';

const MAX_TEXT = 200;
/** A date-time with its offset: a bare date or local time would mean different instants on different servers. */
const DATE_TIME_WITH_OFFSET = /T.*(Z|[+-]\d\d:\d\d)$/;
/** The last instant PostgreSQL and JavaScript both represent without trouble. */
const LATEST_EXPIRY = new Date('9999-12-31T23:59:59Z');
/** PostgreSQL text cannot hold NUL. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const NO_NUL = /^[^\u0000]*$/;

/** `POST /api/mcp-secrets`. */
export class NewSecretDto {
  @ApiProperty({ maxLength: MAX_TEXT, description: "What the secret is for, shown in the owner's list", example: 'laptop' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  @Matches(NO_NUL, { message: 'label must not contain a NUL character' })
  label: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT, description: 'The client it is made for (e.g. "cursor"); tools see it as the caller\'s agent' })
  @Omittable()
  @IsString()
  @MaxLength(MAX_TEXT)
  @Matches(NO_NUL, { message: 'agent must not contain a NUL character' })
  agent?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'ISO 8601 date-time with offset, in the future', example: '2030-01-31T00:00:00Z' })
  @Omittable()
  @Transform(({ obj }: { obj: { expiresAt?: unknown } }) => toDate(obj.expiresAt), { toClassOnly: true })
  @IsDate({ message: 'expiresAt must be an ISO 8601 date-time with offset, e.g. 2030-01-31T00:00:00Z' })
  @MinDate(() => new Date(), { message: 'expiresAt must be in the future' })
  @MaxDate(LATEST_EXPIRY, { message: 'expiresAt must be before the year 10000' })
  expiresAt?: Date;
}

/** Anything but a date-time with offset becomes an invalid date, which `@IsDate` reports. */
function toDate(value: unknown): Date | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' && DATE_TIME_WITH_OFFSET.test(value) ? new Date(value) : new Date(NaN);
}
