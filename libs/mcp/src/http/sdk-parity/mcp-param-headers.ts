/**
 * `Mcp-Param-*` headers (SEP-2243, 2026-07-28): a tool argument whose schema property carries
 * `x-mcp-header: Name` is mirrored into the header `Mcp-Param-Name`, for routers that do not read
 * bodies; a server must refuse a request whose header is missing or disagrees with the body. The
 * SDK checks this only for its `McpServer` (it asks it for the tool's schema), never for a plain
 * `Server` like ours: these are its rules, applied before the request reaches it or the fast lane.
 */

/** One mirrored argument: where it is in `arguments`, the header's name, and the property's type. */
export interface ParamHeader {
  path: readonly string[];
  header: string;
  type: string | undefined;
}

const BASE64_SENTINEL = /^=\?base64\?(.*)\?=$/s;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;

/** The mirrored arguments of a tool's input schema: `x-mcp-header` on properties reached through `properties` alone. */
export function paramHeadersOf(schema: unknown, path: readonly string[] = []): ParamHeader[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as { properties?: Record<string, unknown>; type?: unknown; 'x-mcp-header'?: unknown };
  const own =
    path.length && typeof node['x-mcp-header'] === 'string' && node['x-mcp-header']
      ? [{ path, header: node['x-mcp-header'], type: typeof node.type === 'string' ? node.type : undefined }]
      : [];
  const nested = Object.entries(node.properties ?? {}).flatMap(([key, child]) => paramHeadersOf(child, [...path, key]));
  return [...own, ...nested];
}

/** A header value as the client meant it: `=?base64?…?=` decoded (undefined when that is not canonical Base64 of UTF-8), else the value itself. */
function decoded(value: string): string | undefined {
  const sentinel = BASE64_SENTINEL.exec(value);
  if (!sentinel) return value;
  if (!CANONICAL_BASE64.test(sentinel[1]!)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(sentinel[1]!, 'base64'));
  } catch {
    return undefined;
  }
}

/** The text a header carries for an argument value (numbers in decimal, booleans in lower case); undefined for values never mirrored. */
function asHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

/**
 * What is wrong with the call's `Mcp-Param-*` headers, or undefined: an argument present in the
 * body needs its header, equal to it once decoded (numerically for numbers); an absent argument's
 * header is not looked at. `headers`: the request's, names in lower case.
 */
export function paramHeaderMismatch(
  mirrored: readonly ParamHeader[],
  args: unknown,
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  for (const { path, header, type } of mirrored) {
    const value = path.reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), args);
    const text = asHeaderText(value);
    if (text === undefined) continue;
    const name = `Mcp-Param-${header}`;
    const raw = headers[name.toLowerCase()];
    const sent = Array.isArray(raw) ? raw[0] : raw;
    if (sent === undefined) return `the body carries ${path.join('.')}=${JSON.stringify(value)} but the ${name} header is absent`;
    const meant = decoded(sent.trim());
    if (meant === undefined) return `the ${name} header carries an invalid Base64 value`;
    const numeric = (type === 'integer' || type === 'number') && typeof value === 'number' && CANONICAL_DECIMAL.test(meant);
    if (numeric ? Number(meant) !== value : meant !== text)
      return `the ${name} header says ${JSON.stringify(meant)} but the body carries ${path.join('.')}=${JSON.stringify(value)}`;
  }
  return undefined;
}
