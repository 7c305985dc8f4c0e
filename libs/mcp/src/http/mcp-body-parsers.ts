import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A `/mcp` body that is not valid JSON (or not JSON at all); the SDK answers it with the spec's error. */
export class UnparsedBody {
  constructor(readonly text: string) {}
}

/**
 * Deepest nesting of arrays and objects a JSON body may have. Nothing this server takes needs
 * more, and code walking a deeper value recursively (schema checks, serializers) could overflow
 * the stack.
 */
export const MAX_JSON_DEPTH = 64;

export const TOO_DEEP_MESSAGE = `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`;

/** A `/mcp` body refused for its nesting, answered 400 with a JSON-RPC error. */
export class TooDeepBody {}

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
 * Fastify would answer malformed JSON and foreign content types on its own terms. On the MCP
 * endpoint the body is kept as text instead, so the SDK can answer with JSON-RPC errors
 * (-32700, 415) as the spec prescribes; every other route keeps Fastify's behaviour.
 */
export function registerMcpBodyParsers(fastify: FastifyInstance, mcpPath = '/mcp'): void {
  // Decided from the matched route, so that `/mc%70` is the MCP endpoint too.
  const isMcp = (request: FastifyRequest) => {
    const route = request.routeOptions?.url ?? request.url;
    return route === mcpPath || route.startsWith(`${mcpPath}/`) || route.startsWith(`${mcpPath}?`);
  };
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    const body = withoutByteOrderMark(text as string);
    if (nestedDeeperThan(body, MAX_JSON_DEPTH))
      return isMcp(request) ? done(null, new TooDeepBody()) : done(new BadRequestException(TOO_DEEP_MESSAGE), undefined);
    // An empty body is no body: clients that send `Content-Type: application/json` on every request
    // (a DELETE, a POST that takes nothing) are not refused, and a route that needs a body says what is missing.
    if (body.length === 0) return done(null, isMcp(request) ? new UnparsedBody(body) : undefined);
    try {
      done(null, JSON.parse(body));
    } catch (error) {
      if (isMcp(request)) return done(null, new UnparsedBody(body));
      // An HTTP exception, so that Nest answers 400 (a caller's mistake, logged as such) rather than 500.
      done(new BadRequestException(`Malformed JSON body: ${(error as Error).message}`), undefined);
    }
  });
  fastify.addContentTypeParser('*', { parseAs: 'string' }, (request, text, done) => {
    if (isMcp(request)) return done(null, new UnparsedBody(text as string));
    done(new UnsupportedMediaTypeException(`Unsupported content type "${request.headers['content-type']}": send application/json`), undefined);
  });
}
