import { parseDateParams, parseToken, searchAlternatives } from './fhir-search.js';

const iso = (bounds: ReturnType<typeof parseDateParams>) => bounds.map(({ operator, at }) => `${operator}${at.toISOString()}`);

describe('FHIR date search values', () => {
  it.each([
    ['ge2026-01-01', ['>=2026-01-01T00:00:00.000Z']],
    ['lt2026-02', ['<2026-02-01T00:00:00.000Z']],
    ['le2026-01-05', ['<2026-01-06T00:00:00.000Z']],
    ['gt2026', ['>=2027-01-01T00:00:00.000Z']],
    ['2026-01-05', ['>=2026-01-05T00:00:00.000Z', '<2026-01-06T00:00:00.000Z']],
    ['ge2026-01-05T10:00:00Z', ['>=2026-01-05T10:00:00.000Z']],
  ])('%s', (value, expected) => expect(iso(parseDateParams([value]))).toEqual(expected));

  it.each([
    ['yesterday', 'date: "yesterday" is not a FHIR date search value such as ge2026-01-01 or 2026-01-05'],
    ['2026-1-5', 'date: "2026-1-5" 2026-1-5 must be an ISO 8601 date or date-time such as 2026 or 2026-01 or 2026-01-05 or 2026-01-05T10:00:00Z'],
    ['sa2026-01-01', 'date: the prefix "sa" is not supported; use eq, ge, gt, le or lt'],
    ['ge2026-13-01', 'date: "ge2026-13-01" 2026-13-01 has no month 13'],
    // `new Date()` reads these as 2 March, and as the server's local time.
    ['2026-02-30', 'date: "2026-02-30" 2026-02-30 has no day 30 in 2026-02'],
    ['ge2026-01-05T10:00:00', 'date: "ge2026-01-05T10:00:00" 2026-01-05T10:00:00 needs a time zone after the time of day: Z or an offset such as +01:00'],
  ])('refuses %s naming the parameter and the problem', (value, message) => {
    expect(() => parseDateParams([value])).toThrow(message);
  });

  it('splits a value into its alternatives at unescaped commas', () => {
    expect(searchAlternatives('code', '8867-4')).toEqual(['8867-4']);
    expect(searchAlternatives('code', '8867-4,http://loinc.org|93832-4')).toEqual(['8867-4', 'http://loinc.org|93832-4']);
    expect(searchAlternatives('code', 'a\\,b,c\\\\')).toEqual(['a,b', 'c\\']);
    expect(searchAlternatives('code', 'a\\b')).toEqual(['a\\b']);
  });

  it.each(['a,', ',a', 'a,,b', 'a, ,b'])('refuses %j, which has an empty alternative', (value) => {
    expect(() => searchAlternatives('code', value)).toThrow(`code: "${value}" has an empty alternative; separate values with single commas`);
  });

  it('reads tokens with and without a system', () => {
    expect(parseToken('http://loinc.org|8867-4')).toEqual({ system: 'http://loinc.org', code: '8867-4' });
    expect(parseToken('8867-4')).toEqual({ code: '8867-4' });
    expect(parseToken('|8867-4')).toEqual({ code: '8867-4' });
  });
});
