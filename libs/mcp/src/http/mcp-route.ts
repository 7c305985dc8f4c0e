import { HttpException, Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, DiscoveryService, ExternalContextCreator, HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JSON_RPC_ROUTE_CONFIG, Metrics, Tracing } from '@app/common';
import { MCP_RATE_LIMIT, type McpRateLimit, type RateLimitVerdict } from '../caller.js';
import { McpRegistry } from '../registry/mcp-registry.js';
import { jsonRpcIdOf, SERVER_ERROR, writeJsonRpcError } from './json-rpc-error.js';
import { McpHttpService } from './mcp-http.service.js';
import { OperationObserver } from './operation-observer.js';

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** The Fastify routes of the endpoint (a request's `routeOptions.url`), whose clients read JSON-RPC error bodies. */
export const MCP_ROUTE_PATHS: readonly string[] = ['/mcp', '/mcp/:secret'];

/** Whether the application has global guards or interceptors (`APP_GUARD`, `APP_INTERCEPTOR` providers). */
function hasGlobalEnhancers(discovery: DiscoveryService): boolean {
  return discovery.getProviders().some(({ token }) => typeof token === 'string' && (token.startsWith(APP_GUARD) || token.startsWith(APP_INTERCEPTOR)));
}

/**
 * The Streamable HTTP endpoint: POST for messages, GET for a session's stream, DELETE to end a
 * session. `/mcp/<secret>` serves clients that can only be given a URL, not a header.
 *
 * Plain Fastify routes rather than a Nest controller: the endpoint writes every answer itself, so
 * Nest's router would only add to each call's cost (about a tenth of a `tools/call`, issue 13).
 * Fastify's hooks (request id, CORS, access log) run as for any route, and `/mc%70` or
 * `POST http://host/mcp` reach these handlers like `/mcp`. The rate limit is counted first, before
 * the caller's credential is looked at. An application with global guards or interceptors
 * (`APP_GUARD`, `APP_INTERCEPTOR`) has them run around every request, as for its controllers.
 */
@Injectable()
export class McpRoute implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly discovery: DiscoveryService,
    private readonly contextCreator: ExternalContextCreator,
    private readonly http: McpHttpService,
    private readonly registry: McpRegistry,
    @Optional() @Inject(MCP_RATE_LIMIT) private readonly rateLimit?: McpRateLimit,
    @Optional() private readonly metrics?: Metrics,
    @Optional() private readonly tracing?: Tracing,
  ) {}

  onModuleInit(): void {
    // An application context without an HTTP server (a script, a test of the registry) serves nothing.
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    const serve = hasGlobalEnhancers(this.discovery) ? this.enhanced() : (request: FastifyRequest, reply: FastifyReply) => this.serve(request, reply);
    const observer = new OperationObserver((name) => this.registry.hasTool(name), this.metrics, this.tracing);
    const handler = observer.active ? (request: FastifyRequest, reply: FastifyReply) => observer.traced(request, () => serve(request, reply)) : serve;
    const hooks = observer.active ? { onRequest: observer.onRequest, onResponse: observer.onResponse } : {};
    for (const path of MCP_ROUTE_PATHS) fastify.all(path, { config: JSON_RPC_ROUTE_CONFIG, ...hooks }, handler);
  }

  serve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const verdict = this.rateLimit?.admit(request);
    if (verdict instanceof Promise) return verdict.then((settled) => this.serveAdmitted(settled, request, reply));
    return this.serveAdmitted(verdict, request, reply);
  }

  /** `serve` behind the application's global guards and interceptors; a guard's refusal is answered as a JSON-RPC error with its status. */
  private enhanced(): Handler {
    const options = { guards: true, interceptors: true, filters: false };
    const serve = this.contextCreator.create(
      this,
      this.serve as (...args: unknown[]) => unknown,
      'serve',
      undefined,
      undefined,
      undefined,
      undefined,
      options,
      'http',
    ) as Handler;
    return (request, reply) =>
      serve(request, reply).catch((error: unknown) => {
        if (!(error instanceof HttpException) || reply.raw.headersSent) throw error;
        reply.hijack();
        const headers = Object.fromEntries(Object.entries(reply.getHeaders()).map(([name, value]) => [name, String(value)]));
        writeJsonRpcError(reply.raw, error.getStatus(), SERVER_ERROR, error.message, headers, jsonRpcIdOf(request.body));
      });
  }

  private serveAdmitted(verdict: RateLimitVerdict | undefined, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (verdict === undefined || verdict.allowed) return this.http.handle(request, reply);
    reply.hijack();
    const retryAfter = String(verdict.retryAfterSeconds);
    writeJsonRpcError(
      reply.raw,
      429,
      SERVER_ERROR,
      `Too many requests: try again in ${retryAfter} s`,
      { 'retry-after': retryAfter },
      jsonRpcIdOf(request.body),
    );
    return Promise.resolve();
  }
}
