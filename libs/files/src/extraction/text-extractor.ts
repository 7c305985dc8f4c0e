import { Worker } from 'node:worker_threads';
import type { ExtractionStatus } from '../entities/stored-file.entity.js';
import { extractionKindOf, type ExtractionKind } from './extraction-kind.js';
import { Ocr } from './ocr.js';

export interface TextExtractorOptions {
  /** `auto` reads images and scanned PDFs when `tesseract` is installed; `off` never does. */
  ocr: 'auto' | 'off';
  /** Files larger than this are not read. */
  maxBytes: number;
  /** Extracted text is cut to this many characters. */
  maxChars: number;
  /** Wall-clock limit for one file, OCR included. */
  timeoutMs: number;
  /** Extractions running at once; more wait their turn. */
  concurrency: number;
}

export interface Extraction {
  status: ExtractionStatus;
  text: string | null;
}

const WORKER_URL = new URL('./extract.worker.mjs', import.meta.url);
// Enough heap for pdf.js on a large document, small enough that one file cannot take the machine.
const WORKER_HEAP_MB = 512;
// Scanned PDFs are read page by page; past this many pages the time limit would cut in anyway.
const MAX_OCR_PDF_PAGES = 20;

/** Waits for a free slot before each run, so a burst of uploads does not start a worker each. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly count: number) {
    this.free = count;
  }

  get load(): { running: number; waiting: number } {
    return { running: this.count - this.free, waiting: this.waiting.length };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/**
 * Reads the text out of a stored file, once, at upload. Never throws: whatever goes wrong becomes
 * a `failed: <reason>` status, and the upload stands.
 */
export class TextExtractor {
  private readonly ocrReader = new Ocr(MAX_OCR_PDF_PAGES);
  private readonly slots: Slots;

  constructor(private readonly options: TextExtractorOptions) {
    this.slots = new Slots(options.concurrency);
  }

  /** Extractions running and waiting for a slot. */
  load(): { running: number; waiting: number } {
    return this.slots.load;
  }

  /** The answer for a file too large to be read at all, so that a caller need not fetch it first. */
  refuseSize(size: number): Extraction | undefined {
    return size > this.options.maxBytes ? { status: `failed: larger than ${this.options.maxBytes} bytes, the extraction limit`, text: null } : undefined;
  }

  /** Whether this type has anything to extract here (OCR types only when OCR can run). */
  async canExtract(mime: string): Promise<boolean> {
    const kind = extractionKindOf(mime);
    if (kind === 'none') return false;
    return kind !== 'image' || this.ocrAvailable();
  }

  async extract(path: string, mime: string, size: number): Promise<Extraction> {
    const kind = extractionKindOf(mime);
    if (kind === 'none' || (kind === 'image' && !(await this.ocrAvailable()))) return { status: 'none', text: null };
    const refused = this.refuseSize(size);
    if (refused) return refused;
    try {
      const text = await this.slots.run(() => this.read(kind, path, Date.now() + this.options.timeoutMs));
      if (!text.trim()) return { status: 'none', text: null };
      // A text file is kept as it is; text recovered from a layout loses its stray edges.
      return { status: 'done', text: (kind === 'text' ? text : text.trim()).slice(0, this.options.maxChars) };
    } catch (error) {
      return { status: `failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500) as ExtractionStatus, text: null };
    }
  }

  private async ocrAvailable(): Promise<boolean> {
    return this.options.ocr === 'auto' && (await this.ocrReader.availableLanguages()).length > 0;
  }

  private async read(kind: Exclude<ExtractionKind, 'none'>, path: string, deadline: number): Promise<string> {
    if (kind === 'image') return this.ocrReader.image(path, deadline);
    const text = await this.inWorker(kind, path, deadline);
    // A PDF without a text layer is a scan: read its pages by OCR when possible.
    if (kind === 'pdf' && !text.trim() && (await this.ocrAvailable())) return this.ocrReader.pdf(path, deadline);
    return text;
  }

  private inWorker(kind: 'text' | 'html' | 'pdf' | 'docx', path: string, deadline: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(WORKER_URL, {
        workerData: { kind, path, maxChars: this.options.maxChars, maxBytes: this.options.maxBytes },
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
        stdout: true,
        stderr: true,
      });
      // pdf.js warns on stdout about odd but readable files; nothing there is for the server's logs.
      worker.stdout.resume();
      worker.stderr.resume();
      const timer = setTimeout(
        () => {
          void worker.terminate();
          reject(new Error(`timed out after ${this.options.timeoutMs} ms`));
        },
        Math.max(0, deadline - Date.now()),
      );
      worker.once('message', (answer: { text?: string; error?: string }) => {
        clearTimeout(timer);
        void worker.terminate();
        if (answer.error !== undefined) reject(new Error(answer.error));
        else resolve(answer.text ?? '');
      });
      worker.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      worker.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`extraction stopped (exit code ${code})`));
      });
    });
  }
}
