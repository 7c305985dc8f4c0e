import { isUtf8 } from 'node:buffer';

/**
 * Deepest nesting of arrays and objects a JSON body may have. Nothing this server takes needs
 * more, and code walking a deeper value recursively (schema checks, serializers) could overflow
 * the stack.
 */
const MAX_JSON_DEPTH = 64;

const TOO_DEEP_MESSAGE = `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * JSON is UTF-8 (RFC 8259). Decoded as it came, a byte sequence that is not would turn into U+FFFD
 * and be stored so, silently changing what the caller sent.
 */
const NOT_UTF8_MESSAGE = 'Request body is not valid UTF-8, which JSON must be';

/** At most one pass over the text, before any parsing: brackets inside strings do not count. */
export function nestedDeeperThan(text: string, limit: number): boolean {
  // A body with no more opening brackets than the limit (nearly every request: an echo call has
  // three) cannot nest deeper. Counted with `indexOf`, a few native searches, instead of a walk over
  // every character in JavaScript, which took half as long as parsing such a body.
  if (!moreOpeningBracketsThan(text, limit)) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index++; // backslash: the next character is escaped
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > limit) return true;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return false;
}

function moreOpeningBracketsThan(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++count > limit) return true;
    }
  }
  return false;
}

/**
 * RFC 8259 lets a parser ignore a leading byte order mark, and the SDK does (it reads bodies with
 * `TextDecoder`). Kept, it made `JSON.parse` fail, so such a body went to the SDK as unparsed text
 * and the SDK, parsing it after all, served it past this server's routing: an anonymous call of
 * an auth tool got an error result instead of the 401 challenge, and 2025 sessions were bypassed.
 */
function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The rules every JSON body of this server meets before it is parsed, on `/mcp` and elsewhere:
 * UTF-8, a byte order mark dropped, at most `MAX_JSON_DEPTH` levels. The text to parse, or what is
 * wrong (`encoding` answers as a parse error on `/mcp`, `nesting` as an invalid request).
 */
export function checkedJsonText(bytes: Buffer): { text: string } | { refused: 'encoding' | 'nesting'; message: string } {
  if (!isUtf8(bytes)) return { refused: 'encoding', message: NOT_UTF8_MESSAGE };
  const text = withoutByteOrderMark(bytes.toString('utf8'));
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) return { refused: 'nesting', message: TOO_DEEP_MESSAGE };
  return { text };
}

const bodyTexts = new WeakMap<object, string>();

/** Keeps the text `request`'s JSON body was parsed from, for `jsonBodyText`; the body parsers call it. */
export function keepJsonBodyText(request: object, text: string): void {
  bodyTexts.set(request, text);
}

/**
 * The text `request`'s JSON body was parsed from, for a route that needs what parsing loses: a
 * number's digits beyond the 64-bit float JSON.parse reads it as. Undefined without a JSON body.
 */
export function jsonBodyText(request: object): string | undefined {
  return bodyTexts.get(request);
}
