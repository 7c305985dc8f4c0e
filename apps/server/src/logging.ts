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

/** `/mcp/<secret>` serves clients that take only a URL; the secret in it is a credential. */
export function redactSecretPath(url: string): string {
  return url.replace(/^\/mcp\/[^/?#]+/, '/mcp/[redacted]');
}

/**
 * A request is logged as its id, method, path and status, never its headers: credentials
 * (Authorization, cookies, session ids) cannot leak into the logs, and no redaction pass has to
 * run over every line, which on the MCP endpoint cost more than the tool call itself.
 */
const serializers = {
  req: (request: { id?: unknown; method?: string; url?: string }) => ({ id: request.id, method: request.method, url: request.url && redactSecretPath(request.url) }),
  res: (response: { statusCode?: number }) => ({ statusCode: response.statusCode }),
};

/**
 * JSON lines on stdout: one per request, with its id (Fastify's, which @fastify/middie hands to
 * pino-http), and Nest's own `Logger` lines in between, bound to the request's id.
 */
export function loggingModule(level: LogLevel): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: { level, quietReqLogger: true, serializers },
    // nestjs-pino's default route, `{/*splat}`, matches no request on Nest 12's Fastify adapter.
    forRoutes: [{ path: '/{*splat}', method: RequestMethod.ALL }],
  });
}
