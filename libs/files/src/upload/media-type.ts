import { parse } from 'content-type';

export const OCTET_STREAM = 'application/octet-stream';

/**
 * A Content-Type value as a media type (RFC 9110): its `type/subtype` in lower case, or undefined
 * when the value is none (a control character, no subtype, two types, a malformed parameter).
 * Parameters are left out: a stored type is compared, filtered on and mapped to an extractor as
 * `type/subtype` alone.
 */
export function mediaTypeOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return parse(value).type;
  } catch {
    return undefined;
  }
}

/**
 * A stored type as it is served and shown. Rows written before uploads parsed the declared type
 * may hold one that is none (`text/evil\x01`, which no header can carry: its download answered 500).
 */
export function servableMediaType(stored: string): string {
  return mediaTypeOf(stored) ?? OCTET_STREAM;
}
