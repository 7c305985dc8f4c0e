import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsNotEmpty, IsString, Matches, MaxDate, MaxLength, MinDate } from 'class-validator';
import { Omittable, readIsoDateTime } from '@app/common';

const MAX_TEXT = 200;
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
  @IsDate({ message: ({ value }) => `expiresAt ${expiryProblem(value)}` })
  @MinDate(() => new Date(), { message: 'expiresAt must be in the future' })
  @MaxDate(LATEST_EXPIRY, { message: 'expiresAt must be before the year 10000' })
  expiresAt?: Date;
}

/**
 * A date-time with its zone (a bare date or a local time would mean different instants on different
 * servers) becomes a `Date`; anything else stays as sent, for `@IsDate` to refuse naming its problem.
 */
function toDate(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const read = readIsoDateTime(value, ['moment']);
  return 'problem' in read ? value : read.start;
}

/** Why `@IsDate` refused what was sent, which `toDate` left as it was. */
function expiryProblem(sent: unknown): string {
  const read = typeof sent === 'string' ? readIsoDateTime(sent, ['moment']) : undefined;
  return read && 'problem' in read ? read.problem : 'must be an ISO 8601 date-time with a time zone such as 2030-01-31T00:00:00Z';
}
