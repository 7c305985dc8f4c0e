import { describe, expect, it } from '@jest/globals';
import { AUDIT_CSV_HEADER, auditCsvRow, csvCell } from './audit-csv.js';

describe('csvCell', () => {
  it.each([
    [null, ''],
    ['', ''],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\r\nlines', '"two\r\nlines"'],
    ['line\nfeed', '"line\nfeed"'],
  ])('writes %j as %j (RFC 4180)', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it.each([
    ['=HYPERLINK("http://evil.example")', `"'=HYPERLINK(""http://evil.example"")"`],
    ['+1+2', "'+1+2"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
  ])('prefixes a cell a spreadsheet would run as a formula: %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('leaves a formula character alone past the first one', () => {
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell('mallory+admin@example.com')).toBe('mallory+admin@example.com');
  });
});

describe('auditCsvRow', () => {
  it('writes an entry under the header, its detail as JSON, an absent target as empty cells', () => {
    expect(AUDIT_CSV_HEADER).toBe('id,at,actorId,actorEmail,action,targetUserId,targetEmail,detail,actorAddress\r\n');
    const row = auditCsvRow({
      id: '7',
      at: new Date('2026-01-05T10:00:00.123Z'),
      actorId: '00000000-0000-4000-8000-000000000001',
      actorEmail: '=cmd@example.com',
      actorAddress: '2001:db8::7',
      action: 'audit.export',
      targetUserId: null,
      targetEmail: null,
      detail: { action: 'memories.*' },
    });
    expect(row).toBe(
      `7,2026-01-05T10:00:00.123Z,00000000-0000-4000-8000-000000000001,'=cmd@example.com,audit.export,,,"{""action"":""memories.*""}",2001:db8::7\r\n`,
    );
  });
});
