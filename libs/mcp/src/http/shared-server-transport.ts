import { randomBytes } from 'node:crypto';
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
import { ANONYMOUS_CALLER, callerKey } from '../caller.js';

/**
 * One HTTP exchange waiting for its JSON-RPC response. Answers with a single JSON body, or
 * upgrades to an SSE stream when the tool sends related messages (progress, logs) first.
 */
class PendingExchange {
  private streaming = false;
  /** Ids of the server-to-client requests sent on this exchange's stream, forgotten with it. */
  readonly outboundIds = new Set<string>();

  constructor(
    private readonly response: ServerResponse,
    readonly clientId: RequestId,
    /** Who posted the request (`callerKey`): only they may cancel it or answer what it asks. */
    readonly owner: string,
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
/** A server-to-client request in flight: the SDK's own id for it, and the exchange it was sent on. */
interface OutboundRequest {
  serverId: RequestId;
  exchangeId: number;
  owner: string;
}

/** JSON-RPC error code for an exchange the client cancelled (as in LSP; MCP defines none). */
export const REQUEST_CANCELLED = -32800;

/**
 * Connects one long-lived SDK `Server` to many concurrent stateless HTTP exchanges, so a request
 * without a session costs no server construction. The SDK's own transports are one exchange or
 * one session per `Server`; this one multiplexes by renumbering request ids, which may collide
 * between clients, and maps each response back to the exchange that asked.
 *
 * Callers share the server but never each other's exchanges: a cancellation is matched against
 * the poster's own exchanges by the id the poster used, and a server-to-client request (sampling,
 * elicitation) goes out under an unguessable id, on the asking exchange's stream only, whose answer
 * is accepted only from the exchange's owner.
 */
export class SharedServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private nextId = 0;
  private readonly pending = new Map<number, PendingExchange>();
  private readonly outbound = new Map<string, OutboundRequest>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.pending.clear();
    this.outbound.clear();
    this.onclose?.();
  }

  /** Delivers one request and answers it on `response`; a client that disconnects cancels the call. */
  dispatch(request: JSONRPCRequest, response: ServerResponse, authInfo: AuthInfo | undefined): void {
    const id = ++this.nextId;
    this.pending.set(id, new PendingExchange(response, request.id, callerKey(authInfo)));
    response.once('close', () => {
      if (this.finish(id)) {
        this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'client disconnected' } });
      }
    });
    this.onmessage?.({ ...request, id }, authInfo ? { authInfo } : undefined);
  }

  /**
   * Delivers a notification or a client's response; neither has an answer of its own. False when
   * it was refused: a cancellation or a response that matches none of the poster's own exchanges.
   */
  deliver(message: JSONRPCNotification | JSONRPCMessage, authInfo: AuthInfo | undefined): boolean {
    const extra = authInfo ? { authInfo } : undefined;
    if ('method' in message) {
      if (message.method === 'notifications/cancelled') return this.cancel(message as JSONRPCNotification, callerKey(authInfo));
      this.onmessage?.(message, extra);
      return true;
    }
    const id = String((message as { id: RequestId }).id);
    const outbound = this.outbound.get(id);
    const exchange = outbound && this.pending.get(outbound.exchangeId);
    if (!exchange || outbound.owner !== callerKey(authInfo)) return false;
    this.outbound.delete(id);
    exchange.outboundIds.delete(id);
    this.onmessage?.({ ...message, id: outbound.serverId } as JSONRPCMessage, extra);
    return true;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // The SDK itself produced this message; telling its kind by shape spares a schema parse.
    if (isResponse(message)) {
      const exchange = this.pending.get(message.id as number);
      if (!exchange) return;
      this.finish(message.id as number);
      exchange.complete(message);
      return;
    }
    const relatedId = options?.relatedRequestId;
    const exchange = relatedId === undefined ? undefined : this.pending.get(relatedId as number);
    const isRequest = 'id' in message && 'method' in message;
    if (exchange) {
      exchange.related(isRequest ? this.outboundRequest(message as JSONRPCRequest, relatedId as number, exchange) : message);
    } else if (isRequest) {
      // Without a session there is no standalone stream: no client can see this request, so it fails now.
      const error = { code: -32603, message: 'No client can answer this request: it is not part of a call in flight' };
      this.onmessage?.({ jsonrpc: '2.0', id: (message as JSONRPCRequest).id, error });
    }
    // A notification unrelated to a call has nowhere to go without a session's standalone stream.
  }

  /**
   * Cancels the poster's own exchange that they numbered `requestId`. Anonymous callers cannot be
   * told apart, so their cancellations are refused: closing the connection cancels their call.
   */
  private cancel(message: JSONRPCNotification, owner: string): boolean {
    const clientId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
    if (owner === ANONYMOUS_CALLER || clientId === undefined) return false;
    for (const [id, exchange] of this.pending) {
      if (exchange.owner !== owner || exchange.clientId !== clientId) continue;
      this.finish(id);
      this.onmessage?.({ ...message, params: { ...message.params, requestId: id } });
      // The SDK sends nothing for a cancelled request; the exchange still gets its answer.
      exchange.complete({ jsonrpc: '2.0', id: clientId, error: { code: REQUEST_CANCELLED, message: 'Request cancelled' } });
      return true;
    }
    return false;
  }

  /** The request under an id only the asking exchange's client ever sees. */
  private outboundRequest(request: JSONRPCRequest, exchangeId: number, exchange: PendingExchange): JSONRPCRequest {
    const id = `s-${randomBytes(16).toString('base64url')}`;
    this.outbound.set(id, { serverId: request.id, exchangeId, owner: exchange.owner });
    exchange.outboundIds.add(id);
    return { ...request, id };
  }

  /** Forgets an exchange and the server-to-client requests sent on it; false when it was already gone. */
  private finish(id: number): boolean {
    const exchange = this.pending.get(id);
    if (!exchange) return false;
    this.pending.delete(id);
    for (const outboundId of exchange.outboundIds) this.outbound.delete(outboundId);
    return true;
  }
}

function isResponse(message: JSONRPCMessage): message is JSONRPCResultResponse | JSONRPCErrorResponse {
  return !('method' in message) && ('result' in message || 'error' in message);
}
