import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { Omittable } from './rest/validation.js';
import { InvalidInputError } from './errors.js';

/** One page of a list; `nextCursor` fetches the next one and is null on the last. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** `?limit=&cursor=` of every paginated list. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Items per page' })
  @Omittable()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page' })
  @Omittable()
  @IsString()
  @MaxLength(1000)
  cursor?: string;
}

/**
 * The keyset of the last item on a page (e.g. `[createdAt, id]`), opaque to clients. It is not
 * signed: a forged cursor can only move where the caller's own, already-scoped query starts.
 */
export function encodeCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string): unknown[] {
  try {
    const values: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(values)) return values;
  } catch {
    // Reported below, with the field named.
  }
  throw new InvalidInputError('Invalid cursor: pass the nextCursor of the previous page', { cursor: 'not a cursor this server issued' });
}

/**
 * Builds a page from `limit + 1` rows fetched in keyset order: the extra row only says there is
 * more. `keyOf` gives the keyset of a row (the values the next query starts after).
 */
export function toPage<Row, Item = Row>(
  rows: Row[],
  limit: number,
  keyOf: (row: Row) => unknown[],
  map: (row: Row) => Item = (row) => row as unknown as Item,
): Page<Item> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return { items: kept.map(map), nextCursor: more ? encodeCursor(keyOf(kept[kept.length - 1]!)) : null };
}
