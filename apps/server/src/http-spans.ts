import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Tracing } from '@app/common';

const spans = new WeakMap<FastifyRequest, Span>();

/** The trace a request is part of, for its access line; undefined when traces are off. */
export type TraceIdOf = (request: FastifyRequest) => string | undefined;

/**
 * A SERVER span per HTTP request when traces are on (`Tracing`): its parent is the `traceparent`
 * header's, its name the method and route template (`GET /api/files/:id`, never the path: a
 * `/mcp/<secret>` path must not reach the tracing backend). The request is served inside it, so the
 * MCP, tool, database and storage spans of the request are its descendants. Returns how to read a
 * request's trace id.
 */
export function recordHttpSpans(fastify: FastifyInstance, tracing: Tracing): TraceIdOf | undefined {
  if (!tracing.enabled) return undefined;
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const parent = tracing.extract(request.headers);
    const attributes = {
      'http.request.method': request.method,
      'url.scheme': request.protocol,
      'client.address': request.ip,
      'network.protocol.version': request.raw.httpVersion,
      ...(route ? { 'http.route': route } : {}),
    };
    spans.set(request, tracing.tracer.startSpan(route ? `${request.method} ${route}` : request.method, { kind: SpanKind.SERVER, attributes }, parent));
    done();
  });
  // Entered after the body is parsed: the body's stream events would run outside an earlier context.
  fastify.addHook('preValidation', (request, _reply, done) => {
    const span = spans.get(request);
    if (span) context.with(trace.setSpan(context.active(), span), done);
    else done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
  return (request) => spans.get(request)?.spanContext().traceId;
}
