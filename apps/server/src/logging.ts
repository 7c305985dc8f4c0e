import { randomBytes } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { DynamicModule } from '@nestjs/common';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogFormat, LogLevel } from './config.js';
import type { TraceIdOf } from './http-spans.js';
import { logDestination } from './log-format.js';

/** A caller's own request id is kept when it looks like one, so logs join up across services. */
const ACCEPTABLE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * This process's request ids: a prefix drawn at random once (80 bits, so no two processes share
 * one) and a counter, in the 8-4-4-4-12 shape of a UUID, which log tools take for an id. A
 * `randomUUID()` per request cost a `tools/call echo` about 1.7k of its instructions (issue 53); the
 * ids are for joining log lines, not secrets (a caller may send its own).
 */
const REQUEST_ID_PREFIX = randomBytes(10)
  .toString('hex')
  .replace(/^(.{8})(.{4})(.{4})(.{4})$/, '$1-$2-$3-$4-');
let requestsSeen = 0;

/** Fastify's `genReqId`: the id its request, and so every log line of the request, carries. */
export function requestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  if (typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming)) return incoming;
  return REQUEST_ID_PREFIX + (requestsSeen++).toString(16).padStart(12, '0');
}

/**
 * Tells the caller the id to quote when asking about a request. Set on the raw response, so that
 * the answers the MCP endpoint writes itself (hijacked replies) carry it too.
 */
export function echoRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('x-request-id', request.id);
    done();
  });
}

/** A personal MCP secret (`mrb_sk_...`, the auth lib's `SECRET_PREFIX`) or something shaped like a JWT. */
const CREDENTIAL = /mrb_sk_[\w-]*|eyJ[\w-]*\.[\w-]*(\.[\w-]*)?/gi;
/** `/mcp/<secret>` serves clients that take only a URL; the secret in it is a credential. */
const SECRET_PATH = /^((?:[a-z][a-z\d+.-]*:\/\/[^/?#]*)?\/+mcp\/+)[^?#]*/i;
const MCP_SECRET_ROUTE = '/mcp/:secret';

/** Percent-escapes decoded byte by byte, repeatedly (`%256d` is `%6d` is `m`); malformed ones stay as they are. */
function decodedForLogging(url: string): string {
  let decoded = url;
  for (let round = 0; round < 5 && /%[\da-f]{2}/i.test(decoded); round++) {
    decoded = decoded.replace(/%([\da-f]{2})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return decoded;
}

/**
 * The request target as a log line shows it: never a credential, however the target was spelled
 * (`/mc%70/<secret>`, `%6drb_sk_...`, absolute form). The line shows the decoded target, with the
 * secret of a `/mcp/<secret>` route, and anything shaped like a secret or a JWT, replaced.
 */
export function loggedUrl(url: string, route?: string): string {
  // Routed to the secret URL: whatever follows `/mcp/` is the credential, however it was written.
  if (route === MCP_SECRET_ROUTE) return '/mcp/[redacted]';
  return decodedForLogging(url).replace(SECRET_PATH, '$1[redacted]').replace(CREDENTIAL, '[redacted]');
}

/**
 * JSON lines (or, at a terminal, coloured lines: see log-format.ts) on stdout through nestjs-pino: Nest's own `Logger` lines, and the request lines that
 * `logRequests` writes. nestjs-pino's pino-http middleware is not mounted (no routes): run through
 * @fastify/middie it took two thirds of what a stubbed `/mcp` answer cost (measured under
 * `npm run bench` load), while Fastify's own hooks give the same line and context for a fraction.
 */
export function loggingModule(level: LogLevel, format: LogFormat = 'json'): DynamicModule {
  // wrapSerializers off: pino-http would first build its full request/response records (headers
  // included) for every line and hand those to ours, which keep three fields of them.
  const options = { level, serializers, wrapSerializers: false };
  return LoggerModule.forRoot({ pinoHttp: [options, logDestination(format)], forRoutes: [] });
}

/**
 * What a request line shows of the request and the response: never headers. `remoteAddress` is
 * the client's (`request.ip`: through the proxies `TRUST_PROXY` trusts, the connection's otherwise).
 */
export const serializers = {
  err: pino.stdSerializers.err,
  req: (request: { id?: unknown; method?: string; url?: string; ip?: string; routeOptions?: { url?: string } }) => ({
    id: request.id,
    method: request.method,
    url: request.url && loggedUrl(request.url, request.routeOptions?.url),
    remoteAddress: request.ip,
  }),
  res: (response: { statusCode?: number }) => ({ statusCode: response.statusCode }),
};

/**
 * Per request: one line once the response has gone (or the client hung up first) with id, method,
 * path and status, never headers, so credentials (Authorization, cookies, session ids) cannot leak
 * into the logs and no redaction pass runs over every line. With `requestContext`, also
 * nestjs-pino's logging context, so Nest `Logger` lines written while serving the request carry
 * its id (`LOG_REQUEST_CONTEXT`; without it, tool errors and failed MCP requests still name the id).
 */
export function logRequests(
  fastify: FastifyInstance,
  logger: PinoLogger,
  { requestContext, traceIdOf }: { requestContext: boolean; traceIdOf?: TraceIdOf },
): void {
  if (requestContext) {
    // Entered after the body is parsed: the body's stream events would run outside an earlier context.
    fastify.addHook('preValidation', (request, _reply, done) => logger.runInContext(done, { bindings: { reqId: request.id } }));
  }
  const completed = completedRequestLine(PinoLogger.root, traceIdOf);
  fastify.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode >= 500) PinoLogger.root.error({ ...requestLineFields(request, reply), ...traceFields(request, traceIdOf) }, 'request failed');
    else completed(request, reply);
    done();
  });
  fastify.addHook('onRequest', (_request, reply, done) => {
    // One listener shared by every response, rather than a closure (and `once`'s wrapper) per request.
    (reply.raw as AnsweringResponse)[ANSWERING_REPLY] = reply;
    reply.raw.on('close', logIfAborted);
    done();
  });
}

/** The reply a raw response belongs to, for `logIfAborted`. */
const ANSWERING_REPLY = Symbol('answering reply');
type AnsweringResponse = ServerResponse & { [ANSWERING_REPLY]: FastifyReply };

/** A response's `close` listener: the line of a request whose client hung up before its answer was sent. */
function logIfAborted(this: AnsweringResponse): void {
  if (this.writableFinished) return;
  const reply = this[ANSWERING_REPLY];
  PinoLogger.root.info({ reqId: reply.request.id, req: reply.request, responseTime: roundedElapsed(reply) }, 'request aborted');
}

const traceFields = (request: FastifyRequest, traceIdOf: TraceIdOf | undefined) => {
  const traceId = traceIdOf?.(request);
  return traceId ? { traceId } : {};
};

const roundedElapsed = (reply: FastifyReply) => Math.round(reply.elapsedTime * 100) / 100;

/** What a request line says of an answered request, for pino with `serializers`. */
const requestLineFields = (request: FastifyRequest, reply: FastifyReply) => ({
  reqId: request.id,
  req: request,
  res: reply.raw,
  responseTime: roundedElapsed(reply),
});

/**
 * Fastify's `frameworkErrors`: a target whose route parameter it cannot decode (`/mcp/%ff`, 400) or
 * that is longer than `maxParamLength` (414) is answered by the router, before any hook, so such a
 * request got neither a request id nor a request line. Answered as Fastify does (its status and JSON
 * error), with both. It replaces the Nest adapter's own handler, which adds only the headers of
 * `app.useSecurityHeaders()`, not used here.
 */
export function answerRefusedTarget(logger: () => Logger): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    reply.raw.setHeader('x-request-id', request.id);
    reply.raw.once('finish', () => logger().info(requestLineFields(request, reply), 'request completed'));
    const statusCode = error.statusCode ?? 400;
    void reply.code(statusCode).send({ error: STATUS_CODES[statusCode], code: error.code, message: error.message, statusCode });
  };
}

/** The logger's parts pino's own `info` assembles a line from (`pino.symbols` exposes them for such uses). */
interface PinoLineParts {
  [pino.symbols.lsCacheSym]: Record<number, string>;
  [pino.symbols.timeSym]: () => string;
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.messageKeySym]: string;
  [pino.symbols.endSym]: string;
  [pino.symbols.streamSym]: DestinationStream;
}

/**
 * Writes the `request completed` line exactly as `logger.info({ reqId, req, res, responseTime },
 * 'request completed')` would with `serializers` on a logger without mixins, formatters or hooks
 * (as `loggingModule` makes it): the logger's level label, time, bindings, message key and
 * destination, around a template of the fields. pino's generic walk of the object (a serializer and
 * a `JSON.stringify` per key) cost a `tools/call echo` about 28k of its ~210k instructions; the
 * template about half of that (issue 13). A test holds the two lines equal.
 */
export function completedRequestLine(logger: Logger, traceIdOf?: TraceIdOf): (request: FastifyRequest, reply: FastifyReply) => void {
  const parts = logger as unknown as PinoLineParts;
  const level = logger.levels.values.info;
  const head = parts[pino.symbols.lsCacheSym][level];
  const message = `,${JSON.stringify(parts[pino.symbols.messageKeySym])}:"request completed"${parts[pino.symbols.endSym]}`;
  // Under load one target (`/mcp`) is logged over and over: the last one's logged form is kept, not
  // redone (its redaction's regular expressions cost about 3k of the line's ~17k instructions). The
  // target alone is the key: the route only matters when it is `/mcp/:secret`, which every method
  // of such a target is routed to. `request.routeOptions` builds an object of 13 fields per read.
  let lastUrl = '';
  let lastUrlJson = '""';
  return (request, reply) => {
    if (!logger.isLevelEnabled('info')) return;
    if (request.url !== lastUrl) {
      lastUrlJson = JSON.stringify(loggedUrl(request.url, request.routeOptions.url));
      lastUrl = request.url;
    }
    // Neither needs escaping: an id is `requestId`'s (hex, or a caller's matching ACCEPTABLE_REQUEST_ID), a method an HTTP token.
    const id = `"${request.id}"`;
    const traceId = traceIdOf?.(request);
    const fields = `,"reqId":${id},"req":{"id":${id},"method":"${request.method}","url":${lastUrlJson},"remoteAddress":${JSON.stringify(request.ip)}},"res":{"statusCode":${reply.statusCode}},"responseTime":${roundedElapsed(reply)}${traceId ? `,"traceId":"${traceId}"` : ''}`;
    parts[pino.symbols.streamSym].write(head + parts[pino.symbols.timeSym]() + parts[pino.symbols.chindingsSym] + fields + message);
  };
}
