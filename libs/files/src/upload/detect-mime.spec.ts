import { describe, expect, it } from '@jest/globals';
import { docx, textPdf } from '../../test/fixtures.js';
import { detectMime } from './detect-mime.js';
import { OCTET_STREAM } from './media-type.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(58), Buffer.from([0x80, 0, 0, 0]), Buffer.alloc(64), Buffer.from('PE\0\0'), Buffer.alloc(200)]);
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(100)]);
const text = (value: string) => Buffer.from(value);

describe('detectMime', () => {
  it('believes the content over the name', async () => {
    expect(await detectMime({ head: PNG, filename: 'photo.txt' })).toBe('image/png');
    expect(await detectMime({ head: textPdf(['x']), filename: 'noname' })).toBe('application/pdf');
    expect(await detectMime({ head: await docx(['x']), filename: 'letter.docx' })).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
  });

  it('falls back to the extension for text formats', async () => {
    expect(await detectMime({ head: text('# Title'), filename: 'notes.md' })).toBe('text/markdown');
    expect(await detectMime({ head: text('a,b\n1,2'), filename: 'table.csv' })).toBe('text/csv');
    expect(await detectMime({ head: text('{"a":1}'), filename: 'data.json' })).toBe('application/json');
    expect(await detectMime({ head: text('<div>README</div>\n# Title'), filename: 'README.md' })).toBe('text/markdown');
    expect(await detectMime({ head: text('just words'), filename: 'README' })).toBe('text/plain');
    expect(await detectMime({ head: text('just words'), filename: 'README', declaredMime: 'text/csv; charset=utf-8' })).toBe('text/csv');
  });

  it('takes a declared type only when it is a media type, in lower case and without its parameters', async () => {
    expect(await detectMime({ head: text('a,b'), filename: 'table', declaredMime: 'Text/CSV; charset="utf-8"' })).toBe('text/csv');
    for (const declaredMime of ['text/csv\u0001', 'text/', 'text/csv, text/html', 'text/csv; charset'])
      expect(await detectMime({ head: text('a,b'), filename: 'table', declaredMime })).toBe('text/plain');
  });

  it('turns HTML or executable content claimed as something else into octet-stream', async () => {
    expect(await detectMime({ head: text('<!DOCTYPE html><script>alert(1)</script>'), filename: 'photo.png' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: text('<html><body>hi'), filename: 'notes.txt' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: text('<?xml version="1.0"?><svg onload="alert(1)"/>'), filename: 'chart.xml' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: EXE, filename: 'invoice.pdf' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: ELF, filename: 'data.csv' })).toBe(OCTET_STREAM);
  });

  it('turns an executable or HTML claim the content contradicts into octet-stream', async () => {
    expect(await detectMime({ head: PNG, filename: 'page.html' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: PNG, filename: 'setup.exe' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: PNG, filename: 'x.bin', declaredMime: 'text/html' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: text('plain words'), filename: 'setup.exe' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: Buffer.from([0, 1, 2, 3, 0, 255]), filename: 'page.html' })).toBe(OCTET_STREAM);
  });

  it('keeps HTML that says it is HTML (it is only ever downloaded, never rendered)', async () => {
    expect(await detectMime({ head: text('<!doctype html><p>hi'), filename: 'page.html' })).toBe('text/html');
  });

  it('does not trust a binary claim without its magic number, nor a text claim on binary bytes', async () => {
    expect(await detectMime({ head: text('not really a pdf'), filename: 'report.pdf' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: Buffer.from([0, 159, 146, 150]), filename: 'notes.txt' })).toBe(OCTET_STREAM);
    expect(await detectMime({ head: Buffer.from([0, 159, 146, 150]), filename: 'blob' })).toBe(OCTET_STREAM);
  });
});
