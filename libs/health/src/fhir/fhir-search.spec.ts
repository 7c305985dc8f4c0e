import { parseDateParams, parseToken } from './fhir-search.js';

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

  it.each(['yesterday', 'ge2026-13-01', 'sa2026-01-01', '2026-1-5'])('refuses %s naming the parameter', (value) => {
    expect(() => parseDateParams([value])).toThrow(/date/);
  });

  it('reads tokens with and without a system', () => {
    expect(parseToken('http://loinc.org|8867-4')).toEqual({ system: 'http://loinc.org', code: '8867-4' });
    expect(parseToken('8867-4')).toEqual({ code: '8867-4' });
    expect(parseToken('|8867-4')).toEqual({ code: '8867-4' });
  });
});
