import { describe, expect, it } from '@jest/globals';
import { isUuid } from './uuid.js';

describe('isUuid', () => {
  it('takes a UUID in either case, as PostgreSQL does', () => {
    expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe(true);
    expect(isUuid('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(true);
  });

  it.each([
    ['not-a-uuid'],
    ['0f8fad5b-d9cb-469f-a165-70867728950'],
    ['0f8fad5b-d9cb-469f-a165-70867728950e0'],
    [' 0f8fad5b-d9cb-469f-a165-70867728950e'],
    [''],
    [42],
    [undefined],
  ])('refuses %p', (value) => expect(isUuid(value)).toBe(false));
});
