import { describe, expect, it } from '@jest/globals';
import { extensionOf, sanitizeFilename } from './sanitize-filename.js';

describe('sanitizeFilename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\system32\\cmd.exe', 'cmd.exe'],
    ['/absolute/path/scan.png', 'scan.png'],
    ['..', 'file'],
    ['.hidden', 'hidden'],
    ['   ', 'file'],
    [undefined, 'file'],
    ['line\nbreak\r\t.txt', 'linebreak.txt'],
    ['nul\u0000byte.txt', 'nulbyte.txt'],
    ['esc\u001b[31mred.txt', 'esc[31mred.txt'],
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['zero\u200Bwidth.md', 'zerowidth.md'],
    ['化验单 2024.pdf', '化验单 2024.pdf'],
    ['Cafe\u0301.txt', 'Café.txt'],
  ])('%j -> %j', (raw, expected) => {
    expect(sanitizeFilename(raw)).toBe(expected);
  });

  it('cuts long names to 255 bytes of UTF-8, keeping the extension and whole characters', () => {
    const name = sanitizeFilename(`${'报'.repeat(200)}.pdf`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    expect(name.endsWith('.pdf')).toBe(true);
    expect(name).not.toContain('\uFFFD');
    expect(sanitizeFilename('a'.repeat(300))).toBe('a'.repeat(255));
  });

  it('finds extensions', () => {
    expect(extensionOf('a.PDF')).toBe('pdf');
    expect(extensionOf('archive.tar.gz')).toBe('gz');
    expect(extensionOf('README')).toBe('');
  });
});
