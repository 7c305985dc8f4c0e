import { createServer, type Server } from 'node:http';

/** A span as an OTLP/HTTP JSON export carries it, with its attributes read into plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's `SpanKind`: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number; message?: string };
  /** The `service.name` of the resource that sent it. */
  service: string;
}

export interface OtlpReceiver {
  /** The base address, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  endpoint: string;
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
interface ExportRequest {
  resourceSpans: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans: {
      spans: (Omit<ReceivedSpan, 'attributes' | 'service' | 'links'> & { attributes?: KeyValue[]; links?: { traceId: string; spanId: string }[] })[];
    }[];
  }[];
}

const valueOf = (value: AnyValue) =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ''));
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

/**
 * An OTLP/HTTP receiver of traces in the JSON encoding (`POST /v1/traces`, as OpenTelemetry
 * exporters send with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), answering as a collector does;
 * anything else is refused, so an exporter sending elsewhere or another encoding fails the test.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !request.headers['content-type']?.startsWith('application/json')) {
        refused.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
        return void response.writeHead(415).end();
      }
      const exported = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      for (const { resource, scopeSpans } of exported.resourceSpans) {
        const service = String(attributesOf(resource?.attributes)['service.name'] ?? '');
        for (const { spans } of scopeSpans)
          for (const span of spans) received.push({ ...span, attributes: attributesOf(span.attributes), links: span.links ?? [], service });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => {
      if (refused.length) throw new Error(`The receiver refused: ${refused.join('; ')}`);
      return [...received];
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
