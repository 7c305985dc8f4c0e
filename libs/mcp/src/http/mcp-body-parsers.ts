import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkedJsonText, keepJsonBodyText } from '@app/common';

/** A `/mcp` body that is not valid JSON (or not JSON at all); the SDK answers it with the spec's error. */
export class UnparsedBody {
  constructor(readonly text: string) {}
}

/** JSON-RPC's error codes for a body refused before it is parsed. */
const REFUSAL_CODES = { encoding: -32700, nesting: -32600 };

/** A `/mcp` body refused before parsing (its encoding, its nesting), answered 400 with this JSON-RPC error. */
export class RefusedBody {
  constructor(
    readonly code: number,
    readonly message: string,
  ) {}
}

/**
 * Fastify would answer malformed JSON and foreign content types on its own terms. On the MCP
 * endpoint the body is kept as text instead, so the SDK can answer with JSON-RPC errors
 * (-32700, 415) as the spec prescribes; every other route keeps Fastify's behaviour.
 */
export function registerMcpBodyParsers(fastify: FastifyInstance, mcpPath = '/mcp'): void {
  // Decided from the matched route, so that `/mc%70` is the MCP endpoint too.
  const isMcp = (request: FastifyRequest) => {
    // The target as nearly every client writes it needs no routing lookup (`routeOptions` builds an object per read).
    if (request.url === mcpPath) return true;
    const route = request.routeOptions?.url ?? request.url;
    return route === mcpPath || route.startsWith(`${mcpPath}/`) || route.startsWith(`${mcpPath}?`);
  };
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    const checked = checkedJsonText(bytes as Buffer);
    if ('refused' in checked) {
      const { refused, message } = checked;
      return isMcp(request) ? done(null, new RefusedBody(REFUSAL_CODES[refused], message)) : done(new BadRequestException(message), undefined);
    }
    const body = checked.text;
    // An empty body is no body: clients that send `Content-Type: application/json` on every request
    // (a DELETE, a POST that takes nothing) are not refused, and a route that needs a body says what is missing.
    if (body.length === 0) return done(null, isMcp(request) ? new UnparsedBody(body) : undefined);
    const mcp = isMcp(request);
    // For a REST route that reads what JSON.parse loses (FHIR: a number's digits) with jsonBodyText; /mcp never does.
    if (!mcp) keepJsonBodyText(request, body);
    try {
      done(null, JSON.parse(body));
    } catch (error) {
      if (mcp) return done(null, new UnparsedBody(body));
      // An HTTP exception, so that Nest answers 400 (a caller's mistake, logged as such) rather than 500.
      done(new BadRequestException(`Malformed JSON body: ${(error as Error).message}`), undefined);
    }
  });
  fastify.addContentTypeParser('*', { parseAs: 'string' }, (request, text, done) => {
    if (isMcp(request)) return done(null, new UnparsedBody(text as string));
    done(new UnsupportedMediaTypeException(`Unsupported content type "${request.headers['content-type']}": send application/json`), undefined);
  });
}
