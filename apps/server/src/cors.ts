import type { FastifyInstance } from 'fastify';

/** What a browser-based MCP client must be able to read from an answer. */
const EXPOSED_HEADERS = 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, X-Request-Id';
/** Sent when a preflight does not list the headers it wants (it always should). */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, X-Request-Id';
const ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';

/**
 * CORS for browser-based MCP clients (the Inspector's web UI, web chat front-ends), for the origins
 * in CORS_ORIGINS only; without it, nothing is added and browsers keep other sites out.
 *
 * Not @fastify/cors: it sets headers on Fastify's reply, which the MCP endpoint bypasses when it
 * writes the answer itself (`reply.hijack()`); headers set on the raw response reach every answer.
 * Credentials travel in `Authorization`, not cookies, so `Access-Control-Allow-Credentials` is not sent.
 */
export function registerCors(fastify: FastifyInstance, origins: readonly string[] | undefined): void {
  if (!origins?.length) return;
  const anyOrigin = origins.includes('*');
  fastify.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (!origin || !(anyOrigin || origins.includes(origin))) return done();
    const response = reply.raw;
    response.setHeader('access-control-allow-origin', anyOrigin ? '*' : origin);
    if (!anyOrigin) response.setHeader('vary', 'Origin');
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (!preflight) {
      response.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
      return done();
    }
    response.setHeader('access-control-allow-methods', ALLOWED_METHODS);
    response.setHeader('access-control-allow-headers', request.headers['access-control-request-headers'] || ALLOWED_HEADERS);
    response.setHeader('access-control-max-age', '600');
    void reply.code(204).send();
  });
}
