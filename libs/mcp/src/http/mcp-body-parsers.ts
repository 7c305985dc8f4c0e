import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
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
      // Nest's exception handling answers it, on routes that do not exist too: as an HttpException, not a 500.
      done(new BadRequestException(`Invalid JSON body: ${(error as Error).message}`), undefined);
    }
  });
  fastify.addContentTypeParser('*', { parseAs: 'string' }, (request, text, done) => {
    if (isMcp(request)) return done(null, new UnparsedBody(text as string));
    done(new UnsupportedMediaTypeException(`Unsupported Media Type: ${request.headers['content-type'] ?? 'none'}`), undefined);
  });
}
