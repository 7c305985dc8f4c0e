import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsArray, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { Omittable } from '@app/common';

export const DEFAULT_SEARCH_COUNT = 50;
export const MAX_SEARCH_COUNT = 1000;

/** `GET /api/fhir/Observation`: the FHIR search parameters this server implements; any other is refused by name. */
export class ObservationSearchDto {
  @ApiPropertyOptional({
    description: 'Token: `code` or `system|code`; `a,b` matches either (`\\,` is a comma inside one)',
    example: 'http://loinc.org|8867-4',
  })
  @Omittable()
  @IsString()
  @MaxLength(300)
  code?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Clinical time bounds with eq/ge/gt/le/lt prefixes; repeat for a range',
    example: ['ge2026-01-01', 'lt2026-02-01'],
  })
  @Omittable()
  @Transform(({ value }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @IsString({ each: true })
  @MaxLength(40, { each: true })
  date?: string[];

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_SEARCH_COUNT, default: DEFAULT_SEARCH_COUNT, description: 'At most this many, newest first' })
  @Omittable()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_SEARCH_COUNT)
  _count?: number;

  @ApiPropertyOptional({ description: "Where a page starts: set by the previous page's `next` link" })
  @Omittable()
  @IsString()
  @MaxLength(1000)
  _cursor?: string;
}
