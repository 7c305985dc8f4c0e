const MAX_FILENAME_BYTES = 255;
const FALLBACK_NAME = 'file';

// Control characters (C0, DEL, C1) and format characters (bidi overrides such as U+202E, which can
// make "gpj.exe" display as "exe.jpg", zero-width joiners) have no place in a name shown to people.
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/gu;

/** Cuts a string to at most `maxBytes` of UTF-8 without splitting a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    bytes += Buffer.byteLength(character);
    if (bytes > maxBytes) break;
    end += character.length;
  }
  return text.slice(0, end);
}

/**
 * A name fit for display: the last path segment only (either slash), no control or format
 * characters, no leading dots or surrounding blanks, at most 255 bytes of UTF-8 with the extension
 * kept when it is short. Never used to build a path: objects are stored under random keys.
 */
export function sanitizeFilename(raw: string | undefined): string {
  const lastSegment = (raw ?? '').normalize('NFC').split(/[/\\]/).pop() ?? '';
  const cleaned = lastSegment.replace(UNPRINTABLE, '').trim().replace(/^\.+/, '').trim();
  if (!cleaned) return FALLBACK_NAME;
  if (Buffer.byteLength(cleaned) <= MAX_FILENAME_BYTES) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 && cleaned.length - dot <= 16 ? cleaned.slice(dot) : '';
  return truncateUtf8(cleaned.slice(0, cleaned.length - extension.length), MAX_FILENAME_BYTES - Buffer.byteLength(extension)) + extension;
}

/** The lower-case extension without its dot, or '' when there is none. */
export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(dot + 1).toLowerCase() : '';
}
