import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';

/** Assembles a PDF from object bodies, with a correct cross-reference table. */
function assemblePdf(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = parts[0].length;
  objects.forEach((body, index) => {
    offsets.push(length);
    const chunk = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body), Buffer.from('\nendobj\n')]);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A one-page PDF with a text layer: each line in large Helvetica. */
export function textPdf(lines: string[]): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (character) => `\\${character}`);
  const content = `BT /F1 28 Tf 40 ${360 - 40} Td 36 TL ${lines.map((line) => `(${escape(line)}) Tj T*`).join(' ')} ET`;
  return assemblePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 400] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** Renders the first page of a PDF with poppler's pdftoppm (PNG or JPEG). */
function render(pdf: Buffer, format: 'png' | 'jpeg'): Buffer {
  const directory = mkdtempSync(join(tmpdir(), 'mirobody-fixture-'));
  try {
    writeFileSync(join(directory, 'in.pdf'), pdf);
    execFileSync('pdftoppm', [`-${format}`, '-r', '150', '-singlefile', join(directory, 'in.pdf'), join(directory, 'out')]);
    return readFileSync(join(directory, `out.${format === 'png' ? 'png' : 'jpg'}`));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** A PNG picture of the given lines (needs pdftoppm). */
export const pngOfText = (lines: string[]) => render(textPdf(lines), 'png');

/** Width and height from a JPEG's start-of-frame marker. */
function jpegSize(jpeg: Buffer): [number, number] {
  let offset = 2;
  while (offset < jpeg.length) {
    const marker = jpeg[offset + 1];
    const length = jpeg.readUInt16BE(offset + 2);
    if (marker >= 0xc0 && marker <= 0xc2) return [jpeg.readUInt16BE(offset + 7), jpeg.readUInt16BE(offset + 5)];
    offset += 2 + length;
  }
  throw new Error('no JPEG frame header');
}

/** A PDF holding only a photograph of the lines, as a scanner makes: no text layer (needs pdftoppm). */
export function scannedPdf(lines: string[]): Buffer {
  const jpeg = render(textPdf(lines), 'jpeg');
  const [width, height] = jpegSize(jpeg);
  const content = `q 600 0 0 400 0 0 cm /Im1 Do Q`;
  return assemblePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 400] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    Buffer.concat([
      Buffer.from(
        `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n`,
      ),
      jpeg,
      Buffer.from('\nendstream'),
    ]),
  ]);
}

/** A minimal Word document with one paragraph per entry. */
export async function docx(paragraphs: string[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  const body = paragraphs.map((text) => `<w:p><w:r><w:t>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</w:t></w:r></w:p>`).join('');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** Whether the OCR programs are installed here (CI installs them; a bare machine may not have them). */
export function ocrInstalled(): boolean {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * `it` or `describe` for tests that read scans: where tesseract or pdftoppm is missing they are skipped
 * with the reason printed; in CI (`CI=true`), which installs both, they run (and fail without them).
 */
export function whenOcrInstalled<Test extends { skip: unknown }>(test: Test): Test | Test['skip'] {
  if (process.env.CI === 'true' || ocrInstalled()) return test;
  process.stderr.write('Skipping the tests that read scans: tesseract or pdftoppm is not installed (apt-get install tesseract-ocr poppler-utils).\n');
  return test.skip;
}
