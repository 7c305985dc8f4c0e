import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The OpenTelemetry MCP conventions' boundaries, with three below 10 ms: most calls here end well under it. */
const MCP_BUCKETS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** The OpenTelemetry HTTP conventions' boundaries, with two below 5 ms. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const DB_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** From seconds (a person at their desk) to a day (an approver in another time zone). */
const APPROVAL_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 86400];

/** How a tool call ended: its result, a result the tool marked `isError`, a stop before its end (`tasks/cancel`, its TTL, shutdown), or a failure of the server's. */
export type ToolCallOutcome = 'ok' | 'tool_error' | 'cancelled' | 'internal_error';

/** A value read when Prometheus scrapes, per label set when it has labels. */
export type GaugeReading = number | Record<string, number>;

/**
 * The server's Prometheus metrics, in a registry of its own (two apps in one process never share
 * one). Names follow the OpenTelemetry semantic conventions as Prometheus spells them (dots become
 * underscores, the unit a suffix): `mcp_server_operation_duration_seconds` with `mcp_method_name`,
 * `gen_ai_tool_name`, `error_type`. Every label value comes from a closed set (a route template,
 * a registered tool, a method the protocol defines), so what a client sends cannot grow the series.
 *
 * Recording is a no-op unless the metrics are served (`METRICS_TOKEN` or `METRICS_PORT`): nothing
 * scrapes them otherwise, and the calls then cost a branch each.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpDuration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly mcpDuration = new Histogram({
    name: 'mcp_server_operation_duration_seconds',
    help: 'MCP request duration as observed on the server, from the request until its answer is written',
    labelNames: ['mcp_method_name', 'gen_ai_tool_name', 'error_type', 'mcp_protocol_version'],
    buckets: MCP_BUCKETS,
    registers: [this.registry],
  });
  private readonly toolCalls = new Counter({
    name: 'mcp_tool_calls_total',
    help: 'Tool calls by tool and outcome (ok, tool_error: the tool answered isError, cancelled: stopped before it ended, internal_error: the server failed)',
    labelNames: ['gen_ai_tool_name', 'outcome'],
    registers: [this.registry],
  });
  private readonly rateLimitRefusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429 by the rate limit, by budget',
    labelNames: ['budget'],
    registers: [this.registry],
  });
  private readonly uploadedBytes = new Counter({
    name: 'files_upload_bytes_total',
    help: 'Bytes of the files stored by uploads',
    registers: [this.registry],
  });
  private readonly dbDuration = new Histogram({
    name: 'db_client_operation_duration_seconds',
    help: 'Duration of database queries, by statement and outcome',
    labelNames: ['db_operation_name', 'outcome'],
    buckets: DB_BUCKETS,
    registers: [this.registry],
  });

  private readonly approvalDecisions = new Histogram({
    name: 'mcp_approval_decision_seconds',
    help: 'Time from an approval request to its end, by how it ended (approved, declined, expired, cancelled)',
    labelNames: ['decision'],
    buckets: APPROVAL_BUCKETS,
    registers: [this.registry],
  });

  constructor(readonly enabled: boolean) {
    if (enabled) collectDefaultMetrics({ register: this.registry });
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    if (this.enabled) this.httpDuration.observe({ http_request_method: method, http_route: route, http_response_status_code: status }, seconds);
  }

  mcpOperation(method: string, tool: string, errorType: string, protocolVersion: string, seconds: number): void {
    if (!this.enabled) return;
    this.mcpDuration.observe({ mcp_method_name: method, gen_ai_tool_name: tool, error_type: errorType, mcp_protocol_version: protocolVersion }, seconds);
  }

  toolCall(tool: string, outcome: ToolCallOutcome): void {
    if (this.enabled) this.toolCalls.inc({ gen_ai_tool_name: tool, outcome });
  }

  rateLimitRefusal(budget: string): void {
    if (this.enabled) this.rateLimitRefusals.inc({ budget });
  }

  uploadBytes(bytes: number): void {
    if (this.enabled) this.uploadedBytes.inc(bytes);
  }

  approvalDecided(decision: string, seconds: number): void {
    if (this.enabled) this.approvalDecisions.observe({ decision }, seconds);
  }

  dbQuery(operation: string, success: boolean, seconds: number): void {
    if (this.enabled) this.dbDuration.observe({ db_operation_name: operation, outcome: success ? 'ok' : 'error' }, seconds);
  }

  /**
   * A gauge read when Prometheus scrapes (sessions open, connections in use): its owner registers it
   * once, with the labels its reading names. Without metrics served, nothing is registered.
   */
  gauge(name: string, help: string, read: () => GaugeReading | Promise<GaugeReading>, labelName?: string): void {
    if (!this.enabled) return;
    new Gauge({
      name,
      help,
      labelNames: labelName ? [labelName] : [],
      registers: [this.registry],
      async collect() {
        const reading = await read();
        if (typeof reading === 'number') return void this.set(reading);
        for (const [value, count] of Object.entries(reading)) this.set({ [labelName!]: value }, count);
      },
    });
  }

  /** The exposition Prometheus scrapes. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
