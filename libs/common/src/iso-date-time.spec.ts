import { readIsoDateTime, type DateTimePrecision } from './iso-date-time.js';

const ALL: DateTimePrecision[] = ['year', 'month', 'day', 'moment'];

describe('readIsoDateTime', () => {
  it.each([
    ['2026', 'year', '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2026-12', 'month', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2024-02-29', 'day', '2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
    ['2000-02-29', 'day', '2000-02-29T00:00:00.000Z', '2000-03-01T00:00:00.000Z'],
    ['0050-06-30', 'day', '0050-06-30T00:00:00.000Z', '0050-07-01T00:00:00.000Z'],
    ['2026-01-05T10:00Z', 'moment', '2026-01-05T10:00:00.000Z', '2026-01-05T10:00:00.001Z'],
    ['2026-01-05T10:00:00.5+01:00', 'moment', '2026-01-05T09:00:00.500Z', '2026-01-05T09:00:00.501Z'],
    ['2026-01-05T23:59:59-12:00', 'moment', '2026-01-06T11:59:59.000Z', '2026-01-06T11:59:59.001Z'],
    ['2026-12-31T23:59:59+14:00', 'moment', '2026-12-31T09:59:59.000Z', '2026-12-31T09:59:59.001Z'],
  ])('reads %s as a %s from %s until %s', (text, precision, start, end) => {
    expect(readIsoDateTime(text, ALL)).toEqual({ start: new Date(start), end: new Date(end), precision });
  });

  it.each([
    // Each of these, given to `new Date()`, is another moment or the server's local time.
    ['2026-02-30', 'has no day 30 in 2026-02'],
    ['2026-02-29', 'has no day 29 in 2026-02'],
    ['1900-02-29', 'has no day 29 in 1900-02'],
    ['2026-04-31T10:00:00Z', 'has no day 31 in 2026-04'],
    ['2026-13', 'has no month 13'],
    ['2026-00-10', 'has no month 00'],
    ['2026-01-00', 'has no day 00 in 2026-01'],
    ['2026-01-05T24:00:00Z', 'has no time of day 24:00:00'],
    ['2026-01-05T10:60Z', 'has no time of day 10:60'],
    ['2026-12-31T23:59:60Z', 'is a leap second (:60), which cannot be stored: use :59'],
    ['2026-01-05T10:00:00', 'needs a time zone after the time of day: Z or an offset such as +01:00'],
    ['2026-01-05T10:00:00+14:30', 'has an offset beyond ±14:00'],
    ['2026-01-05T10:00:00-15:00', 'has an offset beyond ±14:00'],
    ['2026-01-05T10:00:00+01:60', 'has an offset beyond ±14:00'],
  ])('refuses %s: it %s', (text, problem) => {
    expect(readIsoDateTime(text, ALL)).toEqual({ problem });
  });

  it.each(['', ' 2026-01-05', '2026-1-5', '20260105', 'Jan 5 2026', '2026-01-05 10:00:00Z', '2026-01-05T10Z', '2026-01-05T10:00:00z'])(
    'refuses %j as not a date',
    (text) => {
      expect(readIsoDateTime(text, ALL)).toEqual({
        problem: 'must be an ISO 8601 date or date-time such as 2026 or 2026-01 or 2026-01-05 or 2026-01-05T10:00:00Z',
      });
    },
  );

  it('takes only the precisions asked for, and names them', () => {
    expect(readIsoDateTime('2026-01-05', ['moment'])).toEqual({ problem: 'must be an ISO 8601 date-time with a time zone such as 2026-01-05T10:00:00Z' });
    expect(readIsoDateTime('2026', ['day', 'moment'])).toEqual({ problem: 'must be an ISO 8601 date or date-time such as 2026-01-05 or 2026-01-05T10:00:00Z' });
    expect(readIsoDateTime('2026-01-05T10:00Z', ['day'])).toEqual({ problem: 'must be an ISO 8601 date such as 2026-01-05' });
  });
});
