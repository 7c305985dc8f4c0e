import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docx, pngOfText, scannedPdf, textPdf, whenOcrInstalled } from '../../test/fixtures.js';
import { TextExtractor } from './text-extractor.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
let directory: string;
const extractor = new TextExtractor({ ocr: 'auto', maxBytes: 10_000_000, maxChars: 1000, timeoutMs: 60_000, concurrency: 2 });

function fileOf(name: string, content: Buffer | string): string {
  const path = join(directory, name);
  writeFileSync(path, content);
  return path;
}

async function extract(name: string, content: Buffer | string, mime: string, other = extractor) {
  const path = fileOf(name, content);
  return other.extract(path, mime, Buffer.byteLength(content));
}

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'mirobody-extract-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('TextExtractor', () => {
  it.each([
    ['notes.txt', 'text/plain', '  plain words\n'],
    ['notes.md', 'text/markdown', '# Title\n\n- item'],
    ['table.csv', 'text/csv', 'a,b\n1,2'],
    ['data.json', 'application/json', '{"glucose": 5.4}'],
    ['data.xml', 'application/xml', '<lab><glucose>5.4</glucose></lab>'],
  ])('reads %s (%s) as it is', async (name, mime, content) => {
    expect(await extract(name, content, mime)).toEqual({ status: 'done', text: content });
  });

  it('reads HTML as text, without tags or scripts', async () => {
    const result = await extract(
      'page.html',
      '<html><head><script>alert(1)</script></head><body><h1>Lab report</h1><p>Glucose <b>5.4</b></p></body></html>',
      'text/html',
    );
    expect(result.status).toBe('done');
    expect(result.text).toContain('Glucose 5.4');
    expect(result.text).not.toMatch(/<|alert/);
  });

  it('reads a PDF text layer and a DOCX in a worker', async () => {
    expect(await extract('report.pdf', textPdf(['Hemoglobin 14.2 g/dL']), 'application/pdf')).toEqual({ status: 'done', text: 'Hemoglobin 14.2 g/dL' });
    expect(await extract('letter.docx', await docx(['Dear doctor,', 'Cholesterol 4.1']), DOCX)).toEqual({
      status: 'done',
      text: 'Dear doctor,\n\nCholesterol 4.1',
    });
  });

  it('cuts text at maxChars', async () => {
    const result = await extract('long.txt', 'x'.repeat(5000), 'text/plain');
    expect(result.text).toHaveLength(1000);
  });

  it('records a broken file as failed, never throwing', async () => {
    const result = await extract('broken.pdf', '%PDF-1.4 this is not really a pdf', 'application/pdf');
    expect(result.status).toMatch(/^failed: /);
    expect(result.text).toBeNull();
  });

  it('reports none for types it cannot read, and for files beyond the size limit', async () => {
    expect(await extract('blob.bin', Buffer.from([1, 2, 3]), 'application/octet-stream')).toEqual({ status: 'none', text: null });
    const small = new TextExtractor({ ocr: 'off', maxBytes: 10, maxChars: 1000, timeoutMs: 60_000, concurrency: 1 });
    expect((await extract('big.txt', 'x'.repeat(11), 'text/plain', small)).status).toBe('failed: larger than 10 bytes, the extraction limit');
  });

  it('stops a run that overstays its time', async () => {
    const hasty = new TextExtractor({ ocr: 'off', maxBytes: 10_000_000, maxChars: 1000, timeoutMs: 1, concurrency: 1 });
    expect(await extract('slow.pdf', textPdf(['slow']), 'application/pdf', hasty)).toEqual({ status: 'failed: timed out after 1 ms', text: null });
  });

  it('leaves images alone when OCR is off', async () => {
    const off = new TextExtractor({ ocr: 'off', maxBytes: 10_000_000, maxChars: 1000, timeoutMs: 60_000, concurrency: 1 });
    expect(await extract('scan.png', Buffer.from('89504e470d0a1a0a', 'hex'), 'image/png', off)).toEqual({ status: 'none', text: null });
  });

  whenOcrInstalled(describe)('with tesseract installed', () => {
    it('reads an image and a scanned PDF by OCR', async () => {
      const image = await extract('scan.png', pngOfText(['Ferritin 87 ng/mL']), 'image/png');
      expect(image.status).toBe('done');
      expect(image.text).toContain('Ferritin 87');
      const scan = await extract('scan.pdf', scannedPdf(['Vitamin D 32 ng/mL']), 'application/pdf');
      expect(scan.status).toBe('done');
      expect(scan.text).toContain('Vitamin D 32');
    }, 60_000);
  });
});
