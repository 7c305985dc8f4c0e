import type { ServerResponse } from 'node:http';
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
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

  complete(message: JSONRPCMessage): void {
    if (this.streaming) {
      this.response.end(sseFrame(message));
      return;
    }
    const body = JSON.stringify(message);
    this.response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    this.response.end(body);
  }
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
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const exchange = this.pending.get(message.id as number);
      if (!exchange) return;
      this.pending.delete(message.id as number);
      exchange.complete({ ...message, id: exchange.clientId });
      return;
    }
    const relatedId = options?.relatedRequestId;
    // Messages unrelated to a request have nowhere to go without a session's standalone stream.
    if (relatedId !== undefined) this.pending.get(relatedId as number)?.related(message);
  }
}
