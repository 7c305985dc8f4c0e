import type { IncomingMessage } from 'node:http';
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Link, type Span } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics, Tracing } from '@app/common';
import { attachOutcome, operationLabels, outcomeOf, type OperationLabels } from './operation-outcome.js';

type HookDone = () => void;

const SPAN = Symbol('mcp operation span');
type WithSpan = IncomingMessage & { [SPAN]?: Span };

/** A single JSON-RPC message's method, id and params, when the body is one. */
function messageOf(body: unknown): { method: string; id?: unknown; params?: Record<string, unknown> } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof method !== 'string') return undefined;
  return { method, id, params: typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : undefined };
}

/**
 * The span of one MCP request, as the OpenTelemetry MCP conventions name it: `{method} {target}`
 * (the tool or prompt a call names, when the server has it), kind SERVER, with the method, the
 * request id, the session, the revision and the transport.
 */
function operationSpanOptions(
  request: FastifyRequest,
  labels: OperationLabels,
  message: NonNullable<ReturnType<typeof messageOf>>,
): { name: string; attributes: Attributes } {
  const prompt = labels.method === 'prompts/get' && typeof message.params?.name === 'string' ? message.params.name : undefined;
  const target = labels.tool && labels.tool !== '_OTHER' ? labels.tool : prompt;
  const session = request.headers['mcp-session-id'];
  const attributes: Attributes = {
    'mcp.method.name': labels.method,
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'network.protocol.version': request.raw.httpVersion,
    'client.address': request.ip,
    ...(labels.protocolVersion ? { 'mcp.protocol.version': labels.protocolVersion } : {}),
    ...(typeof message.id === 'string' || typeof message.id === 'number' ? { 'jsonrpc.request.id': String(message.id) } : {}),
    ...(typeof session === 'string' ? { 'mcp.session.id': session } : {}),
    ...(labels.tool ? { 'gen_ai.tool.name': labels.tool, 'gen_ai.operation.name': 'execute_tool' } : {}),
    ...(prompt ? { 'gen_ai.prompt.name': prompt } : {}),
  };
  return { name: target ? `${labels.method} ${target}` : labels.method, attributes };
}

/**
 * Watches each `/mcp` exchange for the metrics and the traces: notes how it fails
 * (`OperationOutcome`), runs a POST's handling inside its MCP span (the parent: the `traceparent`
 * of the request's `_meta`, as MCP clients propagate it, else the HTTP request's span), and once
 * the answer has gone records `mcp_server_operation_duration_seconds` and ends the span.
 */
export class OperationObserver {
  constructor(
    private readonly isTool: (name: string) => boolean,
    private readonly metrics: Metrics | undefined,
    private readonly tracing: Tracing | undefined,
  ) {}

  get active(): boolean {
    return !!this.metrics?.enabled || !!this.tracing?.enabled;
  }

  readonly onRequest = (request: FastifyRequest, _reply: FastifyReply, done: HookDone) => {
    attachOutcome(request.raw);
    done();
  };

  /** Runs `serve` inside the exchange's MCP span when traces are on. */
  traced<T>(request: FastifyRequest, serve: () => T): T {
    if (!this.tracing?.enabled || request.method !== 'POST') return serve();
    const message = messageOf(request.body);
    if (!message) return serve();
    const { name, attributes } = operationSpanOptions(request, this.labels(request, 200), message);
    const meta = message.params?._meta;
    const fromMeta = typeof meta === 'object' && meta !== null && 'traceparent' in meta;
    const parent = fromMeta ? this.tracing.extract(meta as Record<string, unknown>, context.active()) : context.active();
    // The HTTP request that carried it stays linked when the client's MCP span is the parent.
    const httpSpan = trace.getSpan(context.active());
    const links: Link[] = fromMeta && httpSpan ? [{ context: httpSpan.spanContext() }] : [];
    const span = this.tracing.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links }, parent);
    (request.raw as WithSpan)[SPAN] = span;
    return this.tracing.within(span, serve, parent);
  }

  readonly onResponse = (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
    if (request.method === 'POST') {
      const labels = this.labels(request, reply.statusCode);
      this.metrics?.mcpOperation(labels.method, labels.tool, labels.errorType, labels.protocolVersion, reply.elapsedTime / 1000);
      const span = (request.raw as WithSpan)[SPAN];
      if (span) {
        if (labels.errorType) {
          span.setAttribute('error.type', labels.errorType);
          if (/^-\d+$/.test(labels.errorType)) span.setAttribute('rpc.response.status_code', labels.errorType);
          span.setStatus({ code: SpanStatusCode.ERROR, message: labels.errorType });
        }
        span.end();
      }
    }
    done();
  };

  private labels(request: FastifyRequest, statusCode: number): OperationLabels {
    const version = request.headers['mcp-protocol-version'];
    return operationLabels(request.body, typeof version === 'string' ? version : undefined, statusCode, outcomeOf(request.raw), this.isTool);
  }
}
