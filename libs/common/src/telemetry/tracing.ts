import { context, propagation, ROOT_CONTEXT, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';

/** Where spans go, read by the OpenTelemetry SDK from the standard `OTEL_*` variables. */
export interface TracingSettings {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is not `true`). */
  enabled: boolean;
  /** `service.name` unless `OTEL_SERVICE_NAME` names one. */
  serviceName: string;
}

/** Whether the environment asks for traces: an OTLP endpoint, and the SDK not switched off. */
export function tracingRequested(env: Record<string, string | undefined>): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return !!endpoint && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' && env.OTEL_TRACES_EXPORTER?.trim() !== 'none';
}

/**
 * OpenTelemetry traces: the SDK (`@opentelemetry/sdk-node`: OTLP exporter, W3C propagation, the
 * AsyncLocalStorage context manager) runs only when an OTLP endpoint is configured, and only for
 * traces (metrics are Prometheus', logs are pino's). Off, `enabled` is false and every place that
 * would make a span checks it first: no context manager, no promise hooks, no span objects.
 *
 * The spans, from the places that make them: a SERVER span per HTTP request (`recordHttpSpans`),
 * one per MCP request under it or under the `traceparent` of the request's `_meta`, an
 * `execute_tool` span per tool call, and CLIENT spans for database queries and storage calls
 * made inside any of them.
 */
export class Tracing {
  readonly tracer: Tracer;

  private constructor(private readonly sdk: NodeSDK | undefined) {
    this.tracer = trace.getTracer('mirobody');
  }

  static async start(settings: TracingSettings): Promise<Tracing> {
    if (!settings.enabled) return new Tracing(undefined);
    // Loaded only when traces are on: the SDK and its exporters are some 30 MB of modules.
    const { NodeSDK } = await import('@opentelemetry/sdk-node');
    const sdk = new NodeSDK({
      ...(process.env.OTEL_SERVICE_NAME ? {} : { serviceName: settings.serviceName }),
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
    });
    sdk.start();
    return new Tracing(sdk);
  }

  get enabled(): boolean {
    return this.sdk !== undefined;
  }

  /** The context a W3C `traceparent`/`tracestate` pair (HTTP headers, an MCP request's `_meta`) names, else `base`. */
  extract(carrier: Record<string, unknown>, base: Context = ROOT_CONTEXT): Context {
    return propagation.extract(base, carrier, {
      get: (holder, key) => {
        const value = holder[key];
        return typeof value === 'string' || Array.isArray(value) ? (value as string | string[]) : undefined;
      },
      keys: (holder) => Object.keys(holder),
    });
  }

  /** Runs `work` with `span` as the active span, so that the spans made inside it are its children. */
  within<T>(span: Span, work: () => T, parent: Context = context.active()): T {
    return context.with(trace.setSpan(parent, span), work);
  }

  /** The span active where this is called, if any (a database query's parent). */
  activeSpan(): Span | undefined {
    return trace.getSpan(context.active());
  }

  /** Sends what is still batched, when the app stops. */
  async onApplicationShutdown(): Promise<void> {
    await this.sdk?.shutdown();
  }
}
