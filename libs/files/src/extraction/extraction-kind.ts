/** How text is read out of a type: in a worker (text, html, pdf, docx), by OCR (image), or not at all. */
export type ExtractionKind = 'text' | 'html' | 'pdf' | 'docx' | 'image' | 'none';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
// The raster formats tesseract (through leptonica) reads.
const OCR_IMAGES = new Set(['image/png', 'image/jpeg', 'image/tiff', 'image/bmp', 'image/gif', 'image/webp', 'image/x-portable-pixmap']);

/** Text as it is: `text/*`, JSON and XML (with their `+json` / `+xml` kin). */
export const isTextMime = (mime: string): boolean => mime.startsWith('text/') || /^application\/([\w.+-]+\+)?(json|xml)$/.test(mime);

export function extractionKindOf(mime: string): ExtractionKind {
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (isTextMime(mime)) return 'text';
  if (mime === 'application/pdf') return 'pdf';
  if (mime === DOCX) return 'docx';
  if (OCR_IMAGES.has(mime)) return 'image';
  return 'none';
}
