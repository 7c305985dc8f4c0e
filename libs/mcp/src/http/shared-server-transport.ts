import type { ServerResponse } from 'node:http';
import type {
  AuthInfo,
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResultResponse,
  MessageExtraInfo,
  RequestId,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';

/**
 * One HTTP exchange waiting for its JSON-RPC response. Answers with a single JSON body, or
 * upgrades to an SSE stream when the tool sends related messages (progress, logs) first.
 */
class PendingExchange {
  private streaming = false;

  constructor(
    private readonly response: ServerResponse,
    readonly clientId: RequestId,
  ) {}

  related(message: JSONRPCMessage): void {
    if (!this.streaming) {
      this.streaming = true;
      this.response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    }
    this.response.write(sseFrame(message));
  }

  complete(message: JSONRPCResultResponse | JSONRPCErrorResponse): void {
    const answer = { ...message, id: this.clientId };
    if (this.streaming) {
      this.response.end(sseFrame(answer));
      return;
    }
    if ('result' in answer) return this.writeResult(answer.result);
    const body = JSON.stringify(answer);
    this.response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    this.response.end(body);
  }

  /** A cached result's JSON is written between the envelope's two halves, so it is never copied. */
  private writeResult(result: JSONRPCResultResponse['result']): void {
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(this.clientId)},"result":`;
    const cached = Object.isFrozen(result) ? serializedOnce(result) : undefined;
    if (!cached) {
      const body = `${head}${JSON.stringify(result)}}`;
      this.response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      this.response.end(body);
      return;
    }
    this.response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(head) + cached.length + 1 });
    this.response.write(head);
    this.response.write(cached);
    this.response.end('}');
  }
}

/**
 * Results the registry built once and froze (the `tools/list` payload, resource and prompt lists)
 * are serialized once too: with hundreds of tools, serializing is most of what the call costs.
 */
const frozenResults = new WeakMap<object, Buffer>();

function serializedOnce(result: object): Buffer {
  let json = frozenResults.get(result);
  if (!json) frozenResults.set(result, (json = Buffer.from(JSON.stringify(result))));
  return json;
}

function sseFrame(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * Connects one long-lived SDK `Server` to many concurrent stateless HTTP exchanges, so a request
 * without a session costs no server construction. The SDK's own transports are one exchange or
 * one session per `Server`; this one multiplexes by renumbering request ids, which may collide
 * between clients, and maps each response back to the exchange that asked.
 */
export class SharedServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private nextId = 0;
  private readonly pending = new Map<number, PendingExchange>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.pending.clear();
    this.onclose?.();
  }

  /** Delivers one request and answers it on `response`; a client that disconnects cancels the call. */
  dispatch(request: JSONRPCRequest, response: ServerResponse, authInfo: AuthInfo | undefined): void {
    const id = ++this.nextId;
    this.pending.set(id, new PendingExchange(response, request.id));
    response.once('close', () => {
      if (this.pending.delete(id)) {
        this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'client disconnected' } });
      }
    });
    this.onmessage?.({ ...request, id }, authInfo ? { authInfo } : undefined);
  }

  /** Delivers a notification or a client's response; neither has an answer of its own. */
  deliver(message: JSONRPCNotification | JSONRPCMessage, authInfo: AuthInfo | undefined): void {
    this.onmessage?.(message, authInfo ? { authInfo } : undefined);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // The SDK itself produced this message; telling its kind by shape spares a schema parse.
    if (isResponse(message)) {
      const exchange = this.pending.get(message.id as number);
      if (!exchange) return;
      this.pending.delete(message.id as number);
      exchange.complete(message);
      return;
    }
    const relatedId = options?.relatedRequestId;
    // Messages unrelated to a request have nowhere to go without a session's standalone stream.
    if (relatedId !== undefined) this.pending.get(relatedId as number)?.related(message);
  }
}

function isResponse(message: JSONRPCMessage): message is JSONRPCResultResponse | JSONRPCErrorResponse {
  return !('method' in message) && ('result' in message || 'error' in message);
}
