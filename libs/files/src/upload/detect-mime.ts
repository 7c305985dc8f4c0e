import { lookup } from 'mime-types';
import { isTextMime } from '../extraction/extraction-kind.js';
import { mediaTypeOf, OCTET_STREAM } from './media-type.js';
import { extensionOf } from './sanitize-filename.js';

/** How many leading bytes the upload keeps for detection: enough for file-type to look inside a ZIP (DOCX). */
export const SNIFF_BYTES = 64 * 1024;

// Types a browser or a desktop would run or render as a page: a claim of one of these must be
// borne out by the content, and content of one of these must have been claimed as such.
const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/javascript',
  'application/javascript',
  'application/x-msdownload',
  'application/x-msdos-program',
  'application/vnd.microsoft.portable-executable',
  'application/x-elf',
  'application/x-executable',
  'application/x-mach-binary',
  'application/x-sh',
  'application/x-csh',
  'application/java-archive',
  'application/x-apple-diskimage',
  'application/vnd.debian.binary-package',
  'application/x-rpm',
]);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml', 'image/svg+xml']);
// Formats that are ZIP archives inside: file-type may answer `application/zip` for them.
const ZIP_BASED = /^application\/(vnd\.openxmlformats-officedocument\.|vnd\.oasis\.opendocument\.|epub\+zip)/;
// Document-level markup a browser would treat as a page (a README opening with <div> is still Markdown).
const HTML_START = /^\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body|script|svg|iframe|\?xml[^>]*>\s*<(svg|html))/i;

/** Bytes that decode as UTF-8 (allowing a character cut at the end of the sample) with no NUL. */
function looksLikeText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)));
    return true;
  } catch {
    return false;
  }
}

export interface MimeEvidence {
  /** The first bytes of the content (up to SNIFF_BYTES). */
  head: Uint8Array;
  /** The sanitized filename. */
  filename: string;
  /** The Content-Type the client sent for the part, if any; a value that is no media type is no hint. */
  declaredMime?: string;
}

/**
 * The MIME type to store: what the content says (file-type's magic numbers), else what the name
 * says. A file whose content contradicts an executable or HTML claim, or whose HTML/executable
 * content was claimed as something else, becomes `application/octet-stream`: nothing served later
 * may be rendered or run as something it did not say it was.
 */
export async function detectMime({ head, filename, declaredMime }: MimeEvidence): Promise<string> {
  const fromName = lookup(extensionOf(filename) || '') || undefined;
  const declaredType = mediaTypeOf(declaredMime);
  const declared = declaredType !== OCTET_STREAM ? declaredType : undefined;
  const claimed = fromName ?? declared;
  const claimsActive = [fromName, declared].some((mime) => mime !== undefined && ACTIVE_TYPES.has(mime));

  const text = looksLikeText(head);
  // A page (HTML, SVG) is one whatever magic number or name it carries: it must have said so.
  if (text && HTML_START.test(new TextDecoder().decode(head.subarray(0, 4096)))) return claimed && HTML_TYPES.has(claimed) ? claimed : OCTET_STREAM;

  // Loaded on the first upload: file-type and the parsers under it hold 1-2 MB of heap that a
  // server which never receives a file would carry for nothing (docs/operations.md#memory).
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = (await fileTypeFromBuffer(head))?.mime;
  if (detected) {
    if (detected === 'application/zip' && claimed && ZIP_BASED.test(claimed)) return claimed;
    if (claimed === detected) return detected;
    return claimsActive || ACTIVE_TYPES.has(detected) ? OCTET_STREAM : detected;
  }

  if (!claimed) return text ? 'text/plain' : OCTET_STREAM;
  // Magic numbers would have found a real binary of the claimed kind; text claims need text.
  if (isTextMime(claimed)) return text ? claimed : OCTET_STREAM;
  return OCTET_STREAM;
}
