// content-type ships no types, and @types/content-type is not installed: the part of its API this lib calls.
declare module 'content-type' {
  export interface ParsedMediaType {
    /** `type/subtype`, in lower case. */
    type: string;
    /** Parameter names in lower case, values unquoted. */
    parameters: Record<string, string>;
  }

  /** Parses a Content-Type value by RFC 7231's grammar (RFC 9110's, save empty parameters); throws a TypeError for anything else. */
  export function parse(value: string): ParsedMediaType;
}
