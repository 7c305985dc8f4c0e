import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { IsIn, IsNotEmpty, IsString, MaxLength, ValidateIf, validateSync } from 'class-validator';
import { DEFAULT_PAGE_SIZE, PageQueryDto } from '../pagination.js';
import { fieldProblems, Omittable } from './validation.js';

class Probe {
  @IsString()
  @IsNotEmpty()
  @MaxLength(5)
  label: string;

  @Omittable()
  @IsIn(['a', 'b'])
  kind?: 'a' | 'b';

  @Omittable()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  nickname?: string | null;
}

const problems = (plain: object) => fieldProblems(validateSync(plainToInstance(Probe, plain)));

describe('Omittable', () => {
  it('lets a property be left out, but checks null like any value', () => {
    expect(problems({ label: 'x' })).toEqual({});
    expect(problems({ label: 'x', kind: 'a' })).toEqual({});
    expect(problems({ label: 'x', kind: null })).toEqual({ kind: 'kind must be one of the following values: a, b' });
  });

  it('takes null where the property says so', () => {
    expect(problems({ label: 'x', nickname: null })).toEqual({});
    expect(problems({ label: 'x', nickname: 5 })).toEqual({ nickname: 'nickname must be a string' });
  });
});

describe('fieldProblems', () => {
  it('names the topmost failing check of a property: its type before its length', () => {
    expect(problems({})).toEqual({ label: 'label must be a string' });
    expect(problems({ label: 'too long' })).toEqual({ label: 'label must be shorter than or equal to 5 characters' });
  });
});

describe('PageQueryDto', () => {
  const page = (plain: object) => plainToInstance(PageQueryDto, plain);

  it('gives the default page size to a request without limit, and the caller’s own otherwise', () => {
    expect(page({}).limit).toBe(DEFAULT_PAGE_SIZE);
    expect(page({ limit: '7' }).limit).toBe(7);
    expect(fieldProblems(validateSync(page({})))).toEqual({});
  });

  it.each([['0'], ['201'], ['ten'], ['']])('refuses limit=%j, naming limit', (limit) => {
    expect(Object.keys(fieldProblems(validateSync(page({ limit }))))).toEqual(['limit']);
  });
});
