import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { RequestMethod, type DynamicModule } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { LoggerModule } from 'nestjs-pino';
import type { LogLevel } from './config.js';

/** A caller's own request id is kept when it looks like one, so logs join up across services. */
const ACCEPTABLE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Fastify's `genReqId`: the id its request, and so every log line of the request, carries. */
export function requestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** Tells the caller the id to quote when asking about a request. */
export function echoRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}

/** Headers that carry credentials: a session id is as good as the session. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["mcp-session-id"]',
  'res.headers["set-cookie"]',
  'res.headers["mcp-session-id"]',
];

/** `/mcp/<secret>` serves clients that take only a URL; the secret in it is a credential. */
export function redactSecretPath(url: string): string {
  return url.replace(/^\/mcp\/[^/?#]+/, '/mcp/[redacted]');
}

/** pino-http's request serializer hands over its own summary of the request; only its URL needs redacting. */
const serializeRequest = (request: { url?: string }) => (request.url ? { ...request, url: redactSecretPath(request.url) } : request);

/**
 * JSON lines on stdout: one per request, with its id (Fastify's, which @fastify/middie hands to
 * pino-http), and Nest's own `Logger` lines in between.
 */
export function loggingModule(level: LogLevel): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { req: serializeRequest } },
    // nestjs-pino's default route, `{/*splat}`, matches no request on Nest 12's Fastify adapter.
    forRoutes: [{ path: '/{*splat}', method: RequestMethod.ALL }],
  });
}
