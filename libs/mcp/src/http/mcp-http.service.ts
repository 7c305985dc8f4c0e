import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpException, HttpStatus, Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { toNodeHandler, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpHttpHandler,
  type Server,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AUTHENTICATION_REQUIRED,
  bearerChallenge,
  CALLER_RESOLVER,
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE_MESSAGE,
  describeError,
  InstanceBroadcast,
  isDatabaseUnavailable,
  Metrics,
  missingScopes,
  requestOrigin,
  Signer,
  stackFrames,
  type CallerResolver,
} from '@app/common';
import { agentFromAuthInfo, ANONYMOUS_CALLER, callerFromAuthInfo, callerKey, toAuthInfo } from '../caller.js';
import { MCP_MODULE_OPTIONS, MCP_SIGNER, type McpModuleOptions } from '../mcp.options.js';
import { insufficientScope, McpRegistry } from '../registry/mcp-registry.js';
import { McpServerFactory } from '../server/mcp-server.factory.js';
import { McpTasks } from '../tasks/mcp-tasks.service.js';
import { withCallContext } from './call-context.js';
import { jsonRpcIdOf, SERVER_ERROR, writeJsonRpcError, type JsonRpcId } from './json-rpc-error.js';
import { jsonRpcKind } from './json-rpc-shape.js';
import { outcomeOf } from './operation-outcome.js';
import { requestedAgent } from './requested-agent.js';
import { RefusedBody, UnparsedBody } from './mcp-body-parsers.js';
import { SessionQuotaExceeded, SessionStore, type SessionBinding } from './session-store.js';
import { SharedServerTransport } from './shared-server-transport.js';
import { FastLane } from './fast-lane.js';
import { RebindingVerdicts } from './rebinding-verdicts.js';
import { acceptsJsonAndEventStream, isServedLegacyVersion, MODERN_REVISION, NOT_ACCEPTABLE, paramHeaderMismatch, takesJson } from './sdk-parity/index.js';

const SESSION_NOT_FOUND = -32001;
/** SEP-2243's HeaderMismatch: a routing header that disagrees with the body. */
const HEADER_MISMATCH = -32020;
const INTERNAL_ERROR = -32603;

/** Methods that change a server's per-client state: on the shared server they would change it for every caller. */
const STATE_CHANGING_METHODS = new Set(['initialize', 'logging/setLevel']);

type NodeRequestWithAuth = IncomingMessage & { auth?: AuthInfo };

/** A POST to `/mcp` once its caller is known. */
interface PostExchange {
  request: FastifyRequest;
  raw: NodeRequestWithAuth;
  response: ServerResponse;
  authInfo: AuthInfo | undefined;
  body: unknown;
  sessionId: string | undefined;
  /** `callerKey` of the caller: what a session is bound to. */
  owner: string;
  /** The client stated no `Accept` that takes SSE: a session it opens answers with JSON bodies. */
  jsonOnly: boolean;
}

/** What a route answers when the exchange is not its to serve. */
const NEXT_ROUTE = Symbol('next route');

/** A tool call challenged before it runs: the status, the message and the scopes the tool needs. */
interface ToolCallRefusal {
  status: HttpStatus.UNAUTHORIZED | HttpStatus.FORBIDDEN;
  message: string;
  scopes: readonly string[];
}

/** One exit of a POST: it serves the exchange, or passes it on with `NEXT_ROUTE`. */
interface PostRoute {
  /** What the route serves, for whoever reads the table. */
  name: string;
  serve(post: PostExchange): Promise<void> | void | typeof NEXT_ROUTE;
}

/**
 * A POST whose `Accept` header is absent, lists the bare wildcard (as `curl -d` sends it) or takes
 * JSON without naming `text/event-stream` (a plain HTTP client's `application/json`) is served as a
 * client taking both forms would be; the shared server and the fast lane then answer with a JSON
 * body, and a session it opens answers with JSON bodies too. An `Accept` that leaves out JSON
 * still gets the SDK's 406. True when rewritten.
 */
function acceptJsonWhenUnstated(request: FastifyRequest): boolean {
  const accept = request.raw.headers.accept;
  // What MCP clients send, checked first: it is nearly every request, and needs no splitting.
  if (acceptsJsonAndEventStream(accept)) return false;
  if (accept !== undefined && !takesJson(accept)) return false;
  request.raw.headers.accept = 'application/json, text/event-stream';
  return true;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Routes each `/mcp` exchange to the part of the SDK that serves it:
 * - 2026-07-28 (per-request envelope) traffic to the SDK's `createMcpHandler`;
 * - a 2025 `initialize` to a new session, and requests of a live session to its transport;
 * - session-less 2025 requests, and those of a session another instance issued, to one shared
 *   `Server` (no per-request construction); anything unusual there to the SDK's stateless leg,
 *   which owns the spec's error answers.
 */
@Injectable()
export class McpHttpService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpHttp');
  private sharedServer: Server;
  private readonly sharedTransport = new SharedServerTransport();
  private sdkHandler: McpHttpHandler;
  private sdkNodeHandler: NodeMcpRequestHandler;
  private fastLane?: FastLane;
  private readonly rebindingVerdicts = new RebindingVerdicts(() => this.options.allowedHostnames);
  sessions: SessionStore;

  constructor(
    private readonly serverFactory: McpServerFactory,
    private readonly registry: McpRegistry,
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    @Inject(MCP_SIGNER) private readonly signer: Signer,
    @Optional() @Inject(CALLER_RESOLVER) private readonly callerResolver?: CallerResolver,
    // The app's (`CommonModule`); without it a DELETE is known to this instance only.
    @Optional() private readonly broadcast?: InstanceBroadcast,
    // `McpTasksModule`, when the app imports it into `McpModule`.
    @Optional() private readonly tasks?: McpTasks,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const create = () => this.serverFactory.create();
    const onerror = (error: Error) => this.logger.debug(`MCP exchange failed: ${error.message}`);
    this.sharedServer = create();
    await this.sharedServer.connect(this.sharedTransport);
    this.sdkHandler = createMcpHandler(create, { onerror });
    this.sdkNodeHandler = toNodeHandler(this.sdkHandler, { onerror });
    if (this.options.fastLane) {
      this.fastLane = new FastLane(
        this.registry,
        this.serverFactory.serverInfo,
        {
          session: (id, owner) => this.sessions.get(id, owner),
          shared: (request, response, authInfo) => this.sharedTransport.dispatch(request, response, authInfo),
          modern: (raw, response, body) => this.sdkNodeHandler(raw, response, body),
        },
        this.tasks,
      );
    }
    this.sessions = new SessionStore(
      {
        idleMs: this.options.sessionIdleMs,
        maxSessions: this.options.maxSessions,
        maxSessionsPerCaller: this.options.maxSessionsPerCaller,
        maxAgeMs: this.options.sessionMaxAgeMs,
        signer: this.signer.forPurpose('mcp-session'),
        broadcast: this.broadcast,
      },
      create,
    );
    this.metrics?.gauge('mcp_server_sessions_open', 'Live 2025 MCP sessions this instance holds', () => this.sessions.size);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.sessions?.closeAll(), this.sdkHandler?.close(), this.sharedServer?.close()]);
  }

  async handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // From here on the exchange is ours: Nest's exception filters can no longer answer it.
    reply.hijack();
    const response = reply.raw;
    try {
      await this.route(request, response);
    } catch (error) {
      if (response.headersSent) {
        this.logger.error(`MCP request ${request.id} failed: ${describeError(error)}`, stackFrames(error));
        return void response.end();
      }
      // The caller's credential is checked against the database before anything runs: its outage is a 503 to retry, not a 500.
      if (isDatabaseUnavailable(error)) {
        this.logger.warn(`MCP request ${request.id} answered 503: the database is unavailable (${describeError(error)})`);
        const retryAfter = { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) };
        return writeJsonRpcError(response, 503, SERVER_ERROR, DATABASE_UNAVAILABLE_MESSAGE, retryAfter, jsonRpcIdOf(request.body));
      }
      this.logger.error(`MCP request ${request.id} failed: ${describeError(error)}`, stackFrames(error));
      writeJsonRpcError(response, 500, INTERNAL_ERROR, 'Internal server error');
    }
  }

  private async route(request: FastifyRequest, response: ServerResponse): Promise<void> {
    if (this.rejectedAsRebinding(request, response)) return;
    let authInfo: AuthInfo | undefined;
    try {
      const resolving = this.callerResolver?.resolve(request);
      const caller = resolving instanceof Promise ? await resolving : resolving;
      // The credential's agent, when it names one, is not the request's to change.
      authInfo = toAuthInfo(caller && withCallContext(request, caller), {
        agent: caller?.agent ?? requestedAgent(request),
        requestId: request.id,
        outcome: outcomeOf(request.raw),
      });
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      return this.refuse(request, response, error.getStatus(), error.message, jsonRpcIdOf(request.body));
    }
    if (this.options.requireCredential && !callerFromAuthInfo(authInfo))
      return this.refuse(request, response, HttpStatus.UNAUTHORIZED, AUTHENTICATION_REQUIRED, jsonRpcIdOf(request.body));
    const refusal = this.refusalOfToolCalls(request.body, authInfo);
    if (refusal) return this.refuse(request, response, refusal.status, refusal.message, jsonRpcIdOf(request.body), refusal.scopes);
    const raw = Object.assign(request.raw, { auth: authInfo }) as NodeRequestWithAuth;
    const owner = callerKey(authInfo);
    if (request.method !== 'POST') return this.handleSessionRequest(request, raw, response, owner);
    const jsonOnly = acceptJsonWhenUnstated(request);
    return this.handlePost({ request, raw, response, authInfo, body: request.body, sessionId: header(request, 'mcp-session-id'), owner, jsonOnly });
  }

  /** Serves a POST by the first route of `postRoutes` that takes it. */
  private handlePost(post: PostExchange): Promise<void> | void {
    for (const route of this.postRoutes) {
      const served = route.serve(post);
      if (served !== NEXT_ROUTE) return served;
    }
  }

  /**
   * Where a POST goes, in the order the SDK itself checks it: the body, then the revision, then the
   * 2025 `Accept` rule, then the session. Each route serves the exchange or passes it on (`NEXT_ROUTE`).
   */
  private readonly postRoutes: readonly PostRoute[] = [
    {
      name: 'body the parser refused',
      serve: ({ body, response }) => (body instanceof RefusedBody ? writeJsonRpcError(response, 400, body.code, body.message) : NEXT_ROUTE),
    },
    {
      name: 'body that is not JSON: the SDK answers it',
      serve: ({ body, raw, response }) =>
        body === undefined || body instanceof UnparsedBody ? this.answerUnparsed(raw, response, body?.text ?? '') : NEXT_ROUTE,
    },
    {
      name: '2026-07-28 tools/call whose Mcp-Param headers disagree with its arguments (the SDK checks them for its McpServer only)',
      serve: ({ request, response, body, authInfo }) => {
        const mismatch = this.paramHeaderMismatch(request, body, authInfo);
        return mismatch === undefined
          ? NEXT_ROUTE
          : writeJsonRpcError(response, 400, HEADER_MISMATCH, `Bad Request: the request headers and body disagree: ${mismatch}`, {}, jsonRpcIdOf(body));
      },
    },
    { name: 'fast lane', serve: ({ request, response, body, authInfo }) => this.fastLane?.serve(request, response, body, authInfo) ?? NEXT_ROUTE },
    {
      name: '2026-07-28 envelope, or not JSON-RPC at all: the SDK handler',
      serve: ({ request, raw, response, body }) => {
        const protocolVersionHeader = header(request, 'mcp-protocol-version');
        const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader, mcpMethodHeader: header(request, 'mcp-method'), body });
        return route.kind === 'legacy' ? NEXT_ROUTE : this.sdkNodeHandler(raw, response, body);
      },
    },
    {
      // The SDK's own 406 carries `id: null`; the request's id is known here.
      name: '2025 POST not accepting both media types',
      serve: ({ request, response, body }) =>
        acceptsJsonAndEventStream(header(request, 'accept'))
          ? NEXT_ROUTE
          : writeJsonRpcError(response, 406, SERVER_ERROR, NOT_ACCEPTABLE, {}, jsonRpcIdOf(body)),
    },
    {
      // Another caller's session is not found, whoever they are: its id proves nothing on its own.
      name: "the caller's live session on this instance",
      serve: ({ sessionId, owner, raw, response, body }) => {
        const session = sessionId === undefined ? undefined : this.sessions.get(sessionId, owner);
        return session ? session.transport.handleRequest(raw, response, body) : NEXT_ROUTE;
      },
    },
    {
      name: 'a session nobody issued to this caller',
      serve: ({ sessionId, owner, response }) =>
        sessionId !== undefined && !this.sessions.isIssuedTo(sessionId, owner)
          ? writeJsonRpcError(response, 404, SESSION_NOT_FOUND, 'Session not found')
          : NEXT_ROUTE,
    },
    {
      name: 'initialize: a new session',
      serve: ({ sessionId, owner, request, raw, response, body, jsonOnly }) =>
        sessionId === undefined && (body as { method?: unknown }).method === 'initialize'
          ? this.openSession({ owner, quotaKey: owner === ANONYMOUS_CALLER ? `address:${request.ip}` : owner }, raw, response, body, jsonOnly)
          : NEXT_ROUTE,
    },
    {
      name: 'the shared server: session-less, or a session another instance holds',
      serve: ({ request, response, body, authInfo }) => (this.serveShared(request, response, body, authInfo) ? undefined : NEXT_ROUTE),
    },
    { name: "anything unusual: the SDK's stateless leg", serve: ({ raw, response, body }) => this.sdkNodeHandler(raw, response, body) },
  ];

  private paramHeaderMismatch(request: FastifyRequest, body: unknown, authInfo: AuthInfo | undefined): string | undefined {
    if (request.headers['mcp-protocol-version'] !== MODERN_REVISION || jsonRpcKind(body) !== 'request') return undefined;
    const { method, params } = body as JSONRPCRequest;
    if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
    const tool = this.registry.getTool(params.name, agentFromAuthInfo(authInfo));
    return tool?.paramHeaders.length ? paramHeaderMismatch(tool.paramHeaders, params.arguments, request.headers) : undefined;
  }

  private async openSession(binding: SessionBinding, raw: NodeRequestWithAuth, response: ServerResponse, body: unknown, jsonResponse: boolean): Promise<void> {
    try {
      await this.sessions.initialize(binding, raw, response, body, { jsonResponse });
    } catch (error) {
      if (!(error instanceof SessionQuotaExceeded)) throw error;
      writeJsonRpcError(response, 429, SERVER_ERROR, `${error.message}: close one (DELETE) before opening another`);
    }
  }

  /** Serves a well-formed single 2025 message on the shared server; false leaves it to the SDK. */
  private serveShared(request: FastifyRequest, response: ServerResponse, body: unknown, authInfo: AuthInfo | undefined): boolean {
    if (!acceptsJsonAndEventStream(header(request, 'accept')) || !isServedLegacyVersion(header(request, 'mcp-protocol-version'))) return false;
    const kind = jsonRpcKind(body);
    if (kind === 'request' && !STATE_CHANGING_METHODS.has((body as JSONRPCRequest).method)) {
      this.sharedTransport.dispatch(body as JSONRPCRequest, response, authInfo);
      return true;
    }
    if (kind === 'notification' || kind === 'response') {
      if (this.sharedTransport.deliver(body as JSONRPCMessage, authInfo)) response.writeHead(202).end();
      else writeJsonRpcError(response, 404, SERVER_ERROR, 'No request of yours in flight matches this message');
      return true;
    }
    return false;
  }

  private handleSessionRequest(request: FastifyRequest, raw: NodeRequestWithAuth, response: ServerResponse, owner: string) {
    const sessionId = header(request, 'mcp-session-id');
    if (!sessionId) return this.sdkNodeHandler(raw, response);
    const session = this.sessions.get(sessionId, owner);
    if (session) return session.transport.handleRequest(raw, response);
    if (this.sessions.isIssuedTo(sessionId, owner)) {
      // The session lives on another instance: no standalone stream here, which clients accept;
      // a DELETE reaches it through the broadcast, and without one is not found here (the session goes on there).
      if (request.method === 'GET') {
        return writeJsonRpcError(response, 405, SERVER_ERROR, 'No standalone stream for this session on this instance', { allow: 'POST' });
      }
      if (request.method === 'DELETE' && this.sessions.deletesReachEveryInstance) {
        this.sessions.delete(sessionId);
        return void response.writeHead(200).end();
      }
    }
    return writeJsonRpcError(response, 404, SESSION_NOT_FOUND, 'Session not found');
  }

  /**
   * Calls in the body that are challenged rather than run: a tool that acts for a user, called
   * without a credential (401), and a tool whose scopes the caller's token lacks (403
   * `insufficient_scope`, naming them, so that an OAuth client can ask for them and retry).
   */
  private refusalOfToolCalls(body: unknown, authInfo: AuthInfo | undefined): ToolCallRefusal | undefined {
    const caller = callerFromAuthInfo(authInfo);
    const agent = agentFromAuthInfo(authInfo);
    for (const message of Array.isArray(body) ? body : [body]) {
      if (jsonRpcKind(message) !== 'request' || message.method !== 'tools/call') continue;
      const tool = this.registry.getTool(String(message.params?.name), agent)?.descriptor;
      if (!tool) continue;
      if (!caller && tool.requiresCaller) return { status: HttpStatus.UNAUTHORIZED, message: AUTHENTICATION_REQUIRED, scopes: tool.scopes };
      const missing = missingScopes(caller, tool.scopes);
      if (missing.length) return { status: HttpStatus.FORBIDDEN, message: insufficientScope(tool.name, missing), scopes: tool.scopes };
    }
    return undefined;
  }

  /** A 401 (and a 403 for missing scopes) names where OAuth-capable clients can learn how to log in (RFC 9728), and the scopes to ask for. */
  private refuse(request: FastifyRequest, response: ServerResponse, status: number, message: string, id: JsonRpcId, scopes: readonly string[] = []): void {
    const configured = this.options.resourceMetadataUrl;
    // A path alone is relative to the address the client used.
    const metadata = configured?.startsWith('/') ? `${requestOrigin(request)}${configured}` : configured;
    const challenge =
      status === HttpStatus.UNAUTHORIZED
        ? { 'www-authenticate': bearerChallenge(metadata, { scopes }) }
        : status === HttpStatus.FORBIDDEN && scopes.length
          ? { 'www-authenticate': bearerChallenge(metadata, { error: 'insufficient_scope', scopes }) }
          : undefined;
    writeJsonRpcError(response, status, SERVER_ERROR, message, challenge, id);
  }

  /** Lets the SDK answer a body that is empty, not JSON, or of another content type. */
  private answerUnparsed(raw: NodeRequestWithAuth, response: ServerResponse, text: string) {
    const replay = {
      method: raw.method,
      url: raw.url,
      headers: raw.headers,
      auth: raw.auth,
      async *[Symbol.asyncIterator]() {
        yield Buffer.from(text);
      },
    };
    return this.sdkNodeHandler(replay, response);
  }

  private rejectedAsRebinding(request: FastifyRequest, response: ServerResponse): boolean {
    if (this.options.allowedHostnames.length === 0) return false;
    const refusal = this.rebindingVerdicts.verdict(header(request, 'host'), header(request, 'origin'));
    if (refusal === undefined) return false;
    writeJsonRpcError(response, 403, SERVER_ERROR, refusal);
    return true;
  }
}
