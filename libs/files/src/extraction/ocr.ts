import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

// Languages read when installed: English, and Simplified Chinese (Debian's tesseract-ocr-chi-sim).
const WANTED_LANGUAGES = ['eng', 'chi_sim'];
// A scan's text is small; a page's worth of OCR output is far below this.
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
// Pages rendered from a scanned PDF: 200 dpi reads well; the page cap bounds the time.
const PDF_RENDER_DPI = '200';

/**
 * Optical character recognition through the `tesseract` program (and poppler's `pdftoppm` for
 * scanned PDFs). Each run is a child process with a deadline, so it never blocks the server.
 */
export class Ocr {
  private languages?: Promise<string[]>;

  constructor(private readonly maxPdfPages: number) {}

  /** The languages tesseract will read; empty when the program is not installed. */
  availableLanguages(): Promise<string[]> {
    this.languages ??= run('tesseract', ['--list-langs'], { timeout: 10_000 }).then(
      ({ stdout }) => {
        const installed = new Set(stdout.split('\n').map((line) => line.trim()));
        return WANTED_LANGUAGES.filter((language) => installed.has(language));
      },
      () => [],
    );
    return this.languages;
  }

  async image(path: string, deadline: number): Promise<string> {
    const languages = await this.availableLanguages();
    const { stdout } = await run('tesseract', [path, 'stdout', '-l', languages.join('+')], {
      timeout: remaining(deadline),
      maxBuffer: MAX_OUTPUT_BYTES,
    });
    return stdout;
  }

  /** Renders the first pages of a PDF to images and reads them in order. */
  async pdf(path: string, deadline: number): Promise<string> {
    const directory = await mkdtemp(join(tmpdir(), 'mirobody-ocr-'));
    try {
      await run('pdftoppm', ['-r', PDF_RENDER_DPI, '-png', '-l', String(this.maxPdfPages), path, join(directory, 'page')], {
        timeout: remaining(deadline),
      });
      // pdftoppm pads page numbers to equal width, so name order is page order.
      const pages = (await readdir(directory)).filter((name) => name.endsWith('.png')).sort();
      const texts: string[] = [];
      for (const page of pages) texts.push(await this.image(join(directory, page), deadline));
      return texts.join('\n\f\n');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
}

function remaining(deadline: number): number {
  const left = deadline - Date.now();
  if (left <= 0) throw new Error('timed out');
  return left;
}
