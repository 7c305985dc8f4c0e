import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A `/mcp` body that is not valid JSON (or not JSON at all); the SDK answers it with the spec's error. */
export class UnparsedBody {
  constructor(readonly text: string) {}
}

/**
 * Fastify would answer malformed JSON and foreign content types on its own terms. On the MCP
 * endpoint the body is kept as text instead, so the SDK can answer with JSON-RPC errors
 * (-32700, 415) as the spec prescribes; every other route keeps Fastify's behaviour.
 */
export function registerMcpBodyParsers(fastify: FastifyInstance, mcpPath = '/mcp'): void {
  const isMcp = (request: FastifyRequest) => request.url === mcpPath || request.url.startsWith(`${mcpPath}/`) || request.url.startsWith(`${mcpPath}?`);
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    const body = text as string;
    try {
      done(null, body.length === 0 && isMcp(request) ? new UnparsedBody(body) : JSON.parse(body));
    } catch (error) {
      if (isMcp(request)) return done(null, new UnparsedBody(body));
      done(Object.assign(error as Error, { statusCode: 400 }), undefined);
    }
  });
  fastify.addContentTypeParser('*', { parseAs: 'string' }, (request, text, done) => {
    if (isMcp(request)) return done(null, new UnparsedBody(text as string));
    done(Object.assign(new Error(`Unsupported Media Type: ${request.headers['content-type']}`), { statusCode: 415 }), undefined);
  });
}
