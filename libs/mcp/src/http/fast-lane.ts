import type { ServerResponse } from 'node:http';
import {
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type AuthInfo,
  type CallToolResult,
  type InputRequiredResult,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import { agentFromAuthInfo, callerFromAuthInfo } from '../caller.js';
import { takesContext, type McpRegistry, type RegisteredTool } from '../registry/mcp-registry.js';
import { isPlainObject, isUnchangedBySdk, nonObjectOutputSchema } from './sdk-result-shape.js';

/** A request the lane takes over, with everything it already checked. */
type LaneRequest =
  | { method: 'ping' | 'tools/list'; id: RequestId }
  | { method: 'tools/call'; id: RequestId; tool: RegisteredTool; args: Record<string, unknown> | undefined };

/**
 * Serves the three methods that carry nearly all production traffic (`tools/call`, `tools/list`,
 * `ping`) on a session-less 2025 exchange without the SDK's `Protocol` (its schema parses, abort
 * controller and context building cost more than a whole bare Fastify request). It takes a request
 * only when it can prove the SDK would answer it the same way, and otherwise returns `undefined`
 * so the caller routes it to the SDK unchanged: a batch, a session, a 2026 envelope, a progress
 * token, a tool that takes `@ToolContext()`, an unknown tool, any params shape the SDK might refuse.
 *
 * It runs after the `/mcp` route's own checks (rate limit, DNS rebinding, caller resolution and the
 * 401 challenge), so it sees only callers that may call; the caller comes from the credential alone.
 * A result it cannot prove the SDK passes unchanged (a tool's own content blocks, a class instance,
 * an input request) goes to the SDK with the call already made (`handOver`), never run twice.
 */
export class FastLane {
  constructor(
    private readonly registry: McpRegistry,
    private readonly handOver: (request: JSONRPCRequest, response: ServerResponse, authInfo: AuthInfo, result: CallToolResult | InputRequiredResult) => void,
  ) {}

  /** Answers the exchange and resolves when done; `undefined` when the request is the SDK's to serve. */
  serve(request: FastifyRequest, response: ServerResponse, body: unknown, authInfo: AuthInfo | undefined): Promise<void> | undefined {
    if (!this.sessionLess2025(request)) return undefined;
    // The agent's tool lists apply here as on the SDK path: a hidden tool is the SDK's to call unknown.
    const agent = agentFromAuthInfo(authInfo);
    const taken = this.take(body, agent);
    if (!taken) return undefined;
    if (taken.method === 'tools/call') return this.callTool(body as JSONRPCRequest, taken, response, authInfo);
    return writeResult(response, taken.id, taken.method === 'ping' ? '{}' : this.listPayload(agent)!);
  }

  private async callTool(body: JSONRPCRequest, call: Extract<LaneRequest, { method: 'tools/call' }>, response: ServerResponse, authInfo: AuthInfo | undefined) {
    const caller = callerFromAuthInfo(authInfo);
    const result = await this.registry.callRegistered(call.tool, call.args, authInfo, undefined);
    if (isUnchangedBySdk(result, call.tool.definition.outputSchema)) return writeResult(response, call.id, JSON.stringify(result));
    this.handOver(body, response, { token: '', clientId: caller?.userId ?? '', scopes: [], ...authInfo }, result);
  }

  /** The serialized `tools/list` result; null when a non-object output schema makes it the SDK's to send (its 2025 codec rewrites those). */
  private listPayload(agent: string | undefined): Buffer | null {
    const list = this.registry.listTools(agent);
    let payload = listPayloads.get(list);
    if (payload === undefined) {
      payload = list.tools.some((tool) => nonObjectOutputSchema(tool.outputSchema)) ? null : Buffer.from(JSON.stringify(list));
      listPayloads.set(list, payload);
    }
    return payload;
  }

  /** A 2025 exchange without a session, or an unusual header the SDK should judge: only the first takes the lane. */
  private sessionLess2025(request: FastifyRequest): boolean {
    const headers = request.headers;
    if (headers['mcp-session-id'] !== undefined || headers['mcp-method'] !== undefined) return false;
    const accept = headers.accept;
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return false;
    const version = headers['mcp-protocol-version'];
    return version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version));
  }

  private take(body: unknown, agent: string | undefined): LaneRequest | undefined {
    if (!isPlainObject(body) || body.jsonrpc !== '2.0' || !isRequestId(body.id)) return undefined;
    // The SDK refuses a message with fields JSON-RPC does not define.
    if (Object.keys(body).some((key) => !REQUEST_KEYS.has(key))) return undefined;
    const params = body.params;
    if (params !== undefined && !isPlainObject(params)) return undefined;
    if (params !== undefined && !plainMeta(params._meta)) return undefined;
    const id = body.id;
    switch (body.method) {
      case 'ping':
        return { method: 'ping', id };
      case 'tools/list':
        // A cursor is the SDK's to judge (and to refuse with its own error).
        if (params !== undefined && Object.keys(params).some((key) => key !== '_meta')) return undefined;
        return this.listPayload(agent) === null ? undefined : { method: 'tools/list', id };
      case 'tools/call':
        return params === undefined ? undefined : this.takeCall(id, params, agent);
      default:
        return undefined;
    }
  }

  private takeCall(id: RequestId, params: Record<string, unknown>, agent: string | undefined): LaneRequest | undefined {
    if (Object.keys(params).some((key) => key !== 'name' && key !== 'arguments' && key !== '_meta')) return undefined;
    const { name, arguments: args } = params;
    if (typeof name !== 'string') return undefined;
    // The SDK hands tools a parsed copy, without an own `__proto__` key: such arguments take its path.
    if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, '__proto__'))) return undefined;
    const tool = this.registry.getTool(name, agent);
    if (!tool || takesContext(tool)) return undefined;
    return { method: 'tools/call', id, tool, args };
  }
}

/** Serialized `tools/list` payloads (null: the SDK must send it), per frozen list the registry built (one per agent view). */
const listPayloads = new WeakMap<object, Buffer | null>();

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

const isRequestId = (value: unknown): value is RequestId => typeof value === 'string' || Number.isInteger(value);

/** `_meta` the lane can ignore: absent, or plain without a progress token (progress needs the SDK) or a 2026 envelope claim. */
function plainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  return isPlainObject(meta) && !('progressToken' in meta) && !(PROTOCOL_VERSION_META_KEY in meta);
}

/** One `writeHead` with the whole body: the same bytes the shared SDK transport writes for this result. */
async function writeResult(response: ServerResponse, id: RequestId, result: string | Buffer): Promise<void> {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  const body = typeof result === 'string' ? `${head}${result}}` : Buffer.concat([Buffer.from(head), result, CLOSING_BRACE]);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': typeof body === 'string' ? Buffer.byteLength(body) : body.length });
  response.end(body);
}

const CLOSING_BRACE = Buffer.from('}');
