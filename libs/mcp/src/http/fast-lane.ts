import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJsonContentType,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  type AuthInfo,
  type CallToolResult,
  type Implementation,
  type InputRequiredResult,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import { agentFromAuthInfo, callerFromAuthInfo, callerKey } from '../caller.js';
import { takesContext, type McpRegistry, type RegisteredTool } from '../registry/mcp-registry.js';
import type { McpTasks } from '../tasks/mcp-tasks.service.js';
import { TASKS_EXTENSION } from '../tasks/task-wire.js';
import { withHandedOverResult } from '../server/handed-over-result.js';
import {
  acceptsJsonAndEventStream,
  isPlainObject,
  isServedLegacyVersion,
  isUnchangedBySdk,
  JSON_HEADERS,
  MODERN_RESULT_DEFAULTS,
  MODERN_REVISION,
  nonObjectOutputSchema,
  servableModern,
  SSE_HEADERS,
} from './sdk-parity/index.js';

/** A live 2025 session of this instance, as the session store holds it. */
export interface LaneSession {
  transport: { handleRequest(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> };
  /** Opened by a client that stated no `Accept`: its transport answers with JSON bodies, not SSE. */
  jsonResponse: boolean;
}

/** How the SDK path would serve each kind of exchange; the lane hands a call's result to it when it cannot write the answer itself. */
export interface LaneRoutes {
  /** The live session with this id opened by `owner` (the SDK path's own lookup); another caller's is not found. */
  session(id: string, owner: string): LaneSession | undefined;
  /** The shared server of session-less 2025 exchanges. */
  shared(request: JSONRPCRequest, response: ServerResponse, authInfo: AuthInfo): void;
  /** The SDK's `createMcpHandler`, which serves 2026-07-28 exchanges. */
  modern(raw: IncomingMessage, response: ServerResponse, body: unknown): Promise<void>;
}

/** The exchange as the SDK path would route it. */
type Exchange = { kind: 'stateless' } | { kind: 'modern' } | { kind: 'session'; id: string; session: LaneSession };
type ExchangeKind = Exchange['kind'];

/** A request the lane takes over, with everything it already checked. */
type LaneRequest =
  | { method: 'ping' | 'tools/list'; id: RequestId }
  | { method: 'tools/call'; id: RequestId; tool: RegisteredTool; args: Record<string, unknown> | undefined }
  | { method: 'tasks/get'; id: RequestId; taskId: string };

/** What `serve` returns for an exchange answered at once. */
const ANSWERED = Promise.resolve();

/** The longest task id `tasks/get` takes (its params schema); a longer one is the SDK's to refuse. */
const MAX_TASK_ID_LENGTH = 200;

/**
 * Serves the methods that carry nearly all production traffic (`tools/call`, `tools/list`, and
 * `ping` where the revision has it) without the SDK's `Protocol` (its schema parses, abort
 * controller and context building cost more than a whole bare Fastify request), on three kinds of
 * exchange: a session-less 2025 one, one of a live 2025 session this instance holds for the same
 * caller, and a 2026-07-28 one (per-request envelope). It takes a request only when it can prove
 * the SDK would answer it the same way, and otherwise returns `undefined` so the caller routes it
 * to the SDK unchanged: a batch, a progress token, a tool that takes `@ToolContext()`, an unknown
 * tool, any params or header the SDK might refuse.
 *
 * It runs after the `/mcp` route's own checks (rate limit, DNS rebinding, caller resolution and the
 * 401 challenge), so it sees only callers that may call; the caller comes from the credential alone,
 * and a session only serves the caller it is bound to. A result it cannot prove the SDK passes
 * unchanged (a tool's own content blocks, a class instance, an input request) goes to the SDK path
 * of its exchange with the call already made (`withHandedOverResult`), never run twice.
 */
export class FastLane {
  /** The `_meta` the 2026 codec stamps on every result (`stampServerInfoMeta`). */
  private readonly modernResultMeta: string;
  private readonly listPayloads = { legacy: new WeakMap<object, Buffer | null>(), modern: new WeakMap<object, Buffer | null>() };

  constructor(
    private readonly registry: McpRegistry,
    serverInfo: Implementation,
    private readonly routes: LaneRoutes,
    // With `McpTasksModule`: `tasks/get`, which a client polls, is served here too.
    private readonly tasks?: Pick<McpTasks, 'detailedTask'>,
  ) {
    this.modernResultMeta = JSON.stringify({ [SERVER_INFO_META_KEY]: serverInfo });
  }

  /** Answers the exchange and resolves when done; `undefined` when the request is the SDK's to serve. */
  serve(request: FastifyRequest, response: ServerResponse, body: unknown, authInfo: AuthInfo | undefined): Promise<void> | undefined {
    const kind = exchangeKind(request);
    if (!kind) return undefined;
    // The agent's tool lists apply here as on the SDK path: a hidden tool is the SDK's to call unknown.
    const agent = agentFromAuthInfo(authInfo);
    const scopes = callerFromAuthInfo(authInfo)?.scopes;
    const taken = this.take(body, agent, scopes, kind);
    if (!taken) return undefined;
    const exchange = this.exchange(kind, request, body as JSONRPCRequest, authInfo);
    if (!exchange) return undefined;
    if (taken.method === 'tools/call') return this.callTool(request, body as JSONRPCRequest, taken, exchange, response, authInfo);
    if (taken.method === 'tasks/get') return this.getTask(request, body as JSONRPCRequest, taken, exchange, response, authInfo);
    answer(response, exchange, taken.id, taken.method === 'ping' ? '{}' : this.listPayload(agent, scopes, kind)!);
    return ANSWERED;
  }

  private async callTool(
    request: FastifyRequest,
    body: JSONRPCRequest,
    call: Extract<LaneRequest, { method: 'tools/call' }>,
    exchange: Exchange,
    response: ServerResponse,
    authInfo: AuthInfo | undefined,
  ) {
    const result = await this.registry.callRegistered(call.tool, call.args, authInfo, exchange.kind === 'session' ? exchange.id : undefined);
    if (isUnchangedBySdk(result, call.tool.definition.outputSchema)) {
      const json = JSON.stringify(result);
      // The 2026 result schema adds its defaulted `resultType` after the keys given; the encoder appends the server's identity.
      return answer(
        response,
        exchange,
        call.id,
        exchange.kind === 'modern' ? `${json.slice(0, -1)},"resultType":"complete","_meta":${this.modernResultMeta}}` : json,
      );
    }
    this.handOver(request, body, exchange, response, authInfo, result);
  }

  /** A task of the caller's as the SDK's `tasks/get` handler answers it; any other (unknown, someone else's) is the SDK's to refuse. */
  private async getTask(
    request: FastifyRequest,
    body: JSONRPCRequest,
    get: Extract<LaneRequest, { method: 'tasks/get' }>,
    exchange: Exchange,
    response: ServerResponse,
    authInfo: AuthInfo | undefined,
  ) {
    const detailed = await this.tasks!.detailedTask(get.taskId, callerKey(authInfo));
    if (!detailed) return this.routes.modern(request.raw, response, body);
    const json = JSON.stringify(detailed);
    return answer(response, exchange, get.id, `${json.slice(0, -1)},"resultType":"complete","_meta":${this.modernResultMeta}}`);
  }

  /** Lets the exchange's SDK path validate and encode a result the lane already has, under a fresh `AuthInfo` that carries it. */
  private handOver(
    request: FastifyRequest,
    body: JSONRPCRequest,
    exchange: Exchange,
    response: ServerResponse,
    authInfo: AuthInfo | undefined,
    result: CallToolResult | InputRequiredResult,
  ) {
    const carrier = withHandedOverResult(authInfo, callerFromAuthInfo(authInfo)?.userId ?? '', result);
    if (exchange.kind === 'stateless') return this.routes.shared(body, response, carrier);
    const raw = Object.assign(request.raw, { auth: carrier });
    if (exchange.kind === 'modern') return this.routes.modern(raw, response, body);
    return exchange.session.transport.handleRequest(raw, response, body);
  }

  /**
   * The exchange the SDK would serve this request on, once the checks that need the body are done:
   * for 2026, the SDK's own classification and its required-header rung; for a session, the lookup.
   */
  private exchange(kind: ExchangeKind, request: FastifyRequest, body: JSONRPCRequest, authInfo: AuthInfo | undefined): Exchange | undefined {
    if (kind === 'stateless') return { kind };
    const headers = request.headers;
    if (kind === 'modern') return servableModern(headers, body) ? { kind } : undefined;
    const id = headers['mcp-session-id'] as string;
    const session = this.routes.session(id, callerKey(authInfo));
    return session && { kind, id, session };
  }

  /**
   * The serialized `tools/list` result for the revision; null when the SDK's codec would rewrite it
   * (the 2025 codec rewrites non-object output schemas, the 2026 one drops a tool's `execution`).
   */
  private listPayload(agent: string | undefined, scopes: readonly string[] | undefined, kind: ExchangeKind): Buffer | null {
    const list = this.registry.listTools(agent, scopes);
    const modern = kind === 'modern';
    const cache = modern ? this.listPayloads.modern : this.listPayloads.legacy;
    let payload = cache.get(list);
    if (payload === undefined) {
      payload = modern ? this.modernList(list) : list.tools.some((tool) => nonObjectOutputSchema(tool.outputSchema)) ? null : Buffer.from(JSON.stringify(list));
      cache.set(list, payload);
    }
    return payload;
  }

  /** The 2026 codec's encoding of a plain tool list: `resultType`, the cache fields' defaults, the server's identity. */
  private modernList(list: ReturnType<McpRegistry['listTools']>): Buffer | null {
    if (Object.keys(list).some((key) => key !== 'tools') || list.tools.some((tool) => 'execution' in tool)) return null;
    const head = JSON.stringify({ ...list, ...MODERN_RESULT_DEFAULTS });
    return Buffer.from(`${head.slice(0, -1)},"_meta":${this.modernResultMeta}}`);
  }

  private take(body: unknown, agent: string | undefined, scopes: readonly string[] | undefined, kind: ExchangeKind): LaneRequest | undefined {
    if (!isPlainObject(body) || body.jsonrpc !== '2.0' || !isRequestId(body.id)) return undefined;
    // The SDK refuses a message with fields JSON-RPC does not define.
    if (Object.keys(body).some((key) => !REQUEST_KEYS.has(key))) return undefined;
    const params = body.params;
    if (params !== undefined && !isPlainObject(params)) return undefined;
    if (params !== undefined && !laneMeta(params._meta, kind)) return undefined;
    const id = body.id;
    switch (body.method) {
      case 'ping':
        // The 2026-07-28 revision has no `ping`: the SDK answers it as an unknown method.
        return kind === 'modern' ? undefined : { method: 'ping', id };
      case 'tools/list':
        // A cursor is the SDK's to judge (and to refuse with its own error).
        if (params !== undefined && Object.keys(params).some((key) => key !== '_meta')) return undefined;
        return this.listPayload(agent, scopes, kind) === null ? undefined : { method: 'tools/list', id };
      case 'tools/call':
        return params === undefined ? undefined : this.takeCall(id, params, agent);
      case 'tasks/get':
        return kind === 'modern' && this.tasks && params !== undefined ? takeTaskGet(id, params) : undefined;
      default:
        return undefined;
    }
  }

  private takeCall(id: RequestId, params: Record<string, unknown>, agent: string | undefined): LaneRequest | undefined {
    // Anything else (a task, a 2026 `requestState` or `inputResponses`) is the SDK's to handle.
    if (Object.keys(params).some((key) => key !== 'name' && key !== 'arguments' && key !== '_meta')) return undefined;
    const { name, arguments: args } = params;
    if (typeof name !== 'string') return undefined;
    // The SDK hands tools a parsed copy, without an own `__proto__` key: such arguments take its path.
    if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, '__proto__'))) return undefined;
    const tool = this.registry.getTool(name, agent);
    // A task tool's call may become a task: the tasks extension's to serve; one that waits for an approval is the approvals'.
    if (!tool || takesContext(tool) || tool.descriptor.options.task || tool.descriptor.approval) return undefined;
    return { method: 'tools/call', id, tool, args };
  }
}

/**
 * Which exchange the headers describe, when the lane may serve it: a 2026-07-28 one (its
 * `Mcp-Method` must be there; the classifier checks it names the body's method), or a 2025 one
 * the SDK path would serve (both media types accepted, a 2025 version or none), with or without a
 * session. Anything unusual is the SDK's to judge.
 */
function exchangeKind(request: FastifyRequest): ExchangeKind | undefined {
  const headers = request.headers;
  const version = headers['mcp-protocol-version'];
  if (version === MODERN_REVISION) {
    return typeof headers['mcp-method'] === 'string' && isJsonContentType(headers['content-type']) ? 'modern' : undefined;
  }
  if (headers['mcp-method'] !== undefined) return undefined;
  if (!acceptsJsonAndEventStream(headers.accept) || !isServedLegacyVersion(version)) return undefined;
  const sessionId = headers['mcp-session-id'];
  if (sessionId === undefined) return 'stateless';
  // A session's transport refuses other media types itself (415).
  return typeof sessionId === 'string' && isJsonContentType(headers['content-type']) ? 'session' : undefined;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** The reserved `_meta` keys of the 2026 envelope; the classifier validates them, and the server only reads them for what the lane never does (logging to the client, input requests). */
const ENVELOPE_META_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY]);

/** A safe integer: the SDK's message schema refuses larger ones. */
const isRequestId = (value: unknown): value is RequestId => typeof value === 'string' || Number.isSafeInteger(value);

/**
 * A `tasks/get` the SDK would hand its handler (params `{ taskId }` as its schema takes them) from
 * a client that declares the tasks extension (else the SDK answers -32021).
 */
function takeTaskGet(id: RequestId, params: Record<string, unknown>): LaneRequest | undefined {
  if (Object.keys(params).some((key) => key !== 'taskId' && key !== '_meta')) return undefined;
  const { taskId } = params;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH) return undefined;
  const capabilities = (params._meta as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  const extensions = isPlainObject(capabilities) ? capabilities.extensions : undefined;
  if (!isPlainObject(extensions) || !isPlainObject(extensions[TASKS_EXTENSION])) return undefined;
  return { method: 'tasks/get', id, taskId };
}

/**
 * `_meta` the lane can ignore: absent or plain, without a progress token (progress needs the SDK)
 * and without reserved keys, save the 2026 envelope's own on a 2026 exchange (a 2025 exchange
 * carrying the envelope claim is the SDK's to refuse).
 */
function laneMeta(meta: unknown, kind: ExchangeKind): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta) || 'progressToken' in meta) return false;
  for (const key in meta) {
    if (key.startsWith('io.modelcontextprotocol/') && !(kind === 'modern' && ENVELOPE_META_KEYS.has(key))) return false;
  }
  return true;
}

/**
 * Writes the answer once (one `writeHead` with the whole body), as the exchange's SDK path would:
 * the shared transport's JSON body for a session-less 2025 exchange; the SDK's `Protocol` response
 * (`result`, `jsonrpc`, `id`, in that order) for the others, as one SSE event on a 2025 session
 * that takes streams, and as a JSON body otherwise.
 */
function answer(response: ServerResponse, exchange: Exchange, id: RequestId, result: string | Buffer): void {
  const idJson = JSON.stringify(id);
  if (exchange.kind === 'stateless') return writeOnce(response, JSON_HEADERS, [`{"jsonrpc":"2.0","id":${idJson},"result":`, result, '}']);
  const message = ['{"result":', result, `,"jsonrpc":"2.0","id":${idJson}}`];
  if (exchange.kind === 'modern') return writeOnce(response, JSON_HEADERS, message);
  const sessionHeader = { 'mcp-session-id': exchange.id };
  if (exchange.session.jsonResponse) return writeOnce(response, { ...JSON_HEADERS, ...sessionHeader }, message);
  writeOnce(response, { ...SSE_HEADERS, ...sessionHeader }, ['event: message\ndata: ', ...message, '\n\n']);
}

/**
 * One `writeHead` and one socket write. A cached payload (a tool list) goes out as it is between
 * its envelope's strings, corked into the same write. Copied into a fresh buffer per answer (218 kB
 * for 200 tools), it had V8 scavenge for the external memory, promoting the answers in flight, so
 * that a full collection ran every ~0.6 s under load.
 */
function writeOnce(response: ServerResponse, headers: Record<string, string>, parts: (string | Buffer)[]): void {
  if (parts.every((part) => typeof part === 'string')) {
    const body = parts.join('');
    response.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(body) });
    response.end(body);
    return;
  }
  const length = parts.reduce((total, part) => total + Buffer.byteLength(part), 0);
  response.writeHead(200, { ...headers, 'content-length': length });
  response.cork();
  for (const part of parts.slice(0, -1)) response.write(part);
  // `end` uncorks: the head and every part leave in one write.
  response.end(parts.at(-1));
}
