import { Inject, Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import {
  ProtocolError,
  ProtocolErrorCode,
  type AuthInfo,
  type CallToolResult,
  type InputRequiredResult,
  type ListToolsResult,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import { AUTHENTICATION_REQUIRED, describeError, Metrics, missingScopes, ScopesSupported, Tracing } from '@app/common';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { agentFromAuthInfo, callerFromAuthInfo, MCP_CALL_OBSERVER, requestIdFromAuthInfo, type McpCallObserver, type UserInfo } from '../caller.js';
import { McpToolContext } from '../context/mcp-tool-context.js';
import type { DiscoveredCapabilities, DisabledToolDescriptor, ToolDescriptor } from '../explorer/descriptors.js';
import { McpExplorer } from '../explorer/mcp-explorer.service.js';
import { NO_POLICY_OVERRIDES, withApprovalPolicies } from '../approvals/approval-policy.js';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from '../mcp.options.js';
import { describeOrigin } from '../tool-directories/tool-origin.js';
import { ToolVisibility } from '../visibility/tool-visibility.js';
import { paramHeadersOf, type ParamHeader } from '../http/sdk-parity/index.js';
import { outcomeFromAuthInfo } from '../http/operation-outcome.js';
import { inProcessContext } from './in-process-context.js';
import { ArgumentValidator, describeProblems, type ArgumentProblems } from './argument-validator.js';
import { toGeminiFunction, toOpenAiChatFunction, toOpenAiResponsesFunction } from './llm-functions.js';
import { McpCatalog } from './mcp-catalog.js';
import { formatCatalog, type CatalogFormat, type ToolCatalog } from './tool-catalog.js';
import { compileOrSkip, toToolDefinition } from './tool-definition.js';
import { createToolInvoker, type ToolInvoker } from './tool-invoker.js';
import { cancelledCall, InternalToolError, toolFailure } from './tool-error-policy.js';
import { errorResult, toCallToolResult } from './tool-result.js';
import { summarizeDisabledTool, summarizeTool, type ToolSummary } from './tool-summaries.js';

export interface RegisteredTool {
  readonly descriptor: ToolDescriptor;
  /** The entry published in `tools/list`. */
  readonly definition: Tool;
  /** Checks a call's arguments (applying defaults in place): each problem naming its argument. */
  readonly validate: ArgumentProblems;
  readonly invoke: ToolInvoker;
  /** The arguments its schema mirrors into `Mcp-Param-*` headers (2026-07-28); usually none. */
  readonly paramHeaders: readonly ParamHeader[];
}

export interface ToolCallOptions {
  /** `throw`: a failure of the server's own (see `toolFailure`) is thrown as an `InternalToolError` rather than answered. */
  internalErrors?: 'answer' | 'throw';
  /** `granted`: the call's approval was given (`McpApprovals`); without it, a tool with an approval policy refuses to run. */
  approval?: 'granted';
}

export interface InProcessCallOptions {
  /** The agent the call is made for: its tool lists apply as on `/mcp`. */
  agent?: string;
  /** Cancels the call, as a client's cancellation would. */
  signal?: AbortSignal;
  /** The id of the HTTP request the call serves (a REST route's), for error reports and the access log. */
  requestId?: string;
}

/** What the access log says of a call that failed for a reason of the server's: the details stay in the log, under the request id. */
const SERVER_FAILURE = 'Internal error';
/** The most of a tool error's message the access log keeps. */
const MAX_LOGGED_ERROR_CHARS = 1000;

/** The error results the registry made of failures of the server's own (`toolFailure`'s internal ones), told apart from the tool's own errors. */
const serverFailures = new WeakSet<CallToolResult>();
/** The results of calls stopped before they ended (`cancelledCall`): neither the tool's error nor the server's. */
const cancelledCalls = new WeakSet<CallToolResult>();
/** What the access log says of a cancelled call. */
const CANCELLED = 'Cancelled';

/**
 * Holds every tool, resource and prompt, with compiled validators and the ready-made `tools/list`
 * payload. Built once at bootstrap; nothing in it is rebuilt per request.
 */
@Injectable()
export class McpRegistry implements OnModuleInit {
  private readonly logger = new Logger('McpRegistry');
  private readonly tools = new Map<string, RegisteredTool>();
  /** The tools of classes disabled at start-up: listed by `toolSummaries`, never callable. */
  private disabledTools: readonly DisabledToolDescriptor[] = [];
  private listResult: ListToolsResult = { tools: [] };
  private readonly listsByAgent = new Map<string, ListToolsResult>();
  /** Every scope some tool requires, sorted; a caller's scopes are reduced to these to key its list. */
  private toolScopes: readonly string[] = [];
  /** An agent's list as callers with each combination of those scopes see it. */
  private listsByGrant = new WeakMap<ListToolsResult, Map<string, ListToolsResult>>();
  private readonly visibility: ToolVisibility;
  catalog: McpCatalog;

  constructor(
    private readonly explorer: McpExplorer,
    private readonly contextCreator: ExternalContextCreator,
    @Optional() @Inject(MCP_CALL_OBSERVER) private readonly observer?: McpCallObserver,
    @Optional() @Inject(MCP_MODULE_OPTIONS) private readonly options?: Pick<McpModuleOptions, 'agentTools' | 'approvalPolicies'>,
    // The app's (`CommonModule`), for the protected-resource metadata; a test module of this lib may go without.
    @Optional() private readonly scopesSupported?: ScopesSupported,
    @Optional() private readonly metrics?: Metrics,
    @Optional() private readonly tracing?: Tracing,
  ) {
    this.visibility = new ToolVisibility(options?.agentTools);
    this.catalog = new McpCatalog({ tools: [], resources: [], resourceTemplates: [], prompts: [], completions: [] }, this.visibility);
  }

  onModuleInit(): void {
    this.load(withApprovalPolicies(this.explorer.explore(), this.options?.approvalPolicies ?? NO_POLICY_OVERRIDES));
  }

  /** Replaces the registry's contents; used at bootstrap and by tests that assemble capabilities by hand. */
  load(found: DiscoveredCapabilities): void {
    const validator = new ArgumentValidator();
    this.tools.clear();
    this.listsByAgent.clear();
    for (const descriptor of found.tools) {
      const validate = compileOrSkip(validator, descriptor, this.logger);
      if (!validate) continue;
      this.tools.set(descriptor.name, {
        descriptor,
        definition: toToolDefinition(descriptor),
        validate,
        invoke: createToolInvoker(descriptor, this.contextCreator),
        paramHeaders: paramHeadersOf(descriptor.inputSchema),
      });
    }
    this.listResult = Object.freeze({ tools: [...this.tools.values()].map((tool) => tool.definition) });
    this.disabledTools = found.disabledTools ?? [];
    this.toolScopes = [...new Set([...this.tools.values()].flatMap((tool) => tool.descriptor.scopes))].sort();
    this.listsByGrant = new WeakMap();
    this.scopesSupported?.declare(this.toolScopes);
    this.catalog = new McpCatalog(found, this.visibility);
    this.warnAboutUnknownListNames(found);
  }

  private warnAboutUnknownListNames(found: DiscoveredCapabilities): void {
    const known = new Set([
      ...this.tools.keys(),
      ...found.prompts.map((prompt) => prompt.name),
      ...[...found.resources, ...found.resourceTemplates].map((resource) => resource.options.name),
    ]);
    for (const { list, name, closest } of this.visibility.unknownNames(known)) {
      this.logger.warn(
        `${list} names "${name}", which is no tool, prompt or resource of this server${closest ? ` (did you mean "${closest}"?)` : ''}: it matches nothing`,
      );
    }
  }

  get size(): number {
    return this.tools.size;
  }

  get hasTools(): boolean {
    return this.tools.size > 0;
  }

  /**
   * The `tools/list` payload the agent sees (everything without an agent, or for one without
   * lists), less the tools whose scopes a scoped caller lacks (`scopes`: the caller's, undefined
   * for one not limited by scopes); built once per agent and combination of scopes.
   */
  listTools(agent?: string, scopes?: readonly string[]): ListToolsResult {
    const seen = this.visibility.view(this.listsByAgent, agent, this.listResult, (allows) =>
      Object.freeze({ tools: this.listResult.tools.filter((tool) => allows(tool.name)) }),
    );
    if (scopes === undefined || this.toolScopes.length === 0) return seen;
    // Reduced to the scopes tools use, so that however many a token carries, the lists stay few.
    const granted = { scopes: this.toolScopes.filter((scope) => scopes.includes(scope)) };
    let byGrant = this.listsByGrant.get(seen);
    if (!byGrant) this.listsByGrant.set(seen, (byGrant = new Map()));
    const key = granted.scopes.join(' ');
    let list = byGrant.get(key);
    if (!list) {
      list = Object.freeze({ tools: seen.tools.filter((tool) => missingScopes(granted, this.tools.get(tool.name)!.descriptor.scopes).length === 0) });
      byGrant.set(key, list);
    }
    return list;
  }

  /** Whether a tool of this name is registered, whoever may see it (a metric's label stays within these names). */
  hasTool(name: string): boolean {
    return this.tools.has(name);
  }

  /** A tool the agent may see; a hidden one is as unknown as one that does not exist. */
  getTool(name: string, agent?: string): RegisteredTool | undefined {
    const tool = this.tools.get(name);
    return tool && this.visibility.allows(name, agent) ? tool : undefined;
  }

  /** Validates, resolves the caller, runs the tool and maps its result; a failing tool never escapes as an exception. */
  async callTool(name: string, rawArgs: unknown, sdk: ServerContext, options: ToolCallOptions = {}): Promise<CallToolResult | InputRequiredResult> {
    const tool = this.getTool(name, agentFromAuthInfo(sdk.http?.authInfo));
    if (!tool) {
      outcomeFromAuthInfo(sdk.http?.authInfo)?.note(String(ProtocolErrorCode.InvalidParams));
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    return this.callRegistered(tool, rawArgs, sdk.http?.authInfo, sdk.sessionId, sdk, options);
  }

  /**
   * `callTool` for a caller that has no SDK context (the HTTP fast lane): only for tools that
   * do not take one (see `takesContext`).
   */
  callRegistered(
    tool: RegisteredTool,
    rawArgs: unknown,
    authInfo: AuthInfo | undefined,
    sessionId: string | undefined,
    sdk?: ServerContext,
    options: ToolCallOptions = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    // Not `async`: the promise of `observed` is handed on as it is, not wrapped in another one (each costs a call a few microtask turns).
    const name = tool.descriptor.name;
    const caller = callerFromAuthInfo(authInfo);
    const refused = this.callerRefusal(tool, caller);
    if (refused) return Promise.resolve(refused);
    // Every way into a tool (in-process calls, REST) comes through here: none runs an approved tool without its approval.
    if (tool.descriptor.approval && options.approval !== 'granted') return Promise.resolve(errorResult(approvalRequired(name, tool.descriptor.approval)));
    const run = () => this.run(tool, (rawArgs ?? {}) as Record<string, unknown>, caller, sessionId, requestIdFromAuthInfo(authInfo), sdk, options);
    if (!this.tracing?.enabled) return this.observed(name, caller, authInfo, run);
    // `execute_tool {name}`, under the MCP request's span: the database and storage calls of the tool go under it.
    const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name };
    return this.tracing.tracer.startActiveSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
      try {
        const result = await this.observed(name, caller, authInfo, run);
        if ('isError' in result && result.isError) span.setAttribute('error.type', cancelledCalls.has(result as CallToolResult) ? 'cancelled' : 'tool_error');
        return result;
      } catch (error) {
        span.setAttribute('error.type', error instanceof Error ? error.constructor.name : 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(error) });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /** Why the caller may not call the tool at all (anonymous, or lacking its scopes); undefined when they may. */
  private callerRefusal(tool: RegisteredTool, caller: UserInfo | undefined): CallToolResult | undefined {
    if (tool.descriptor.requiresCaller && !caller) return errorResult(AUTHENTICATION_REQUIRED);
    const missing = missingScopes(caller, tool.descriptor.scopes);
    if (missing.length) return errorResult(insufficientScope(tool.descriptor.name, missing));
    return undefined;
  }

  /**
   * Why a call of the tool would be refused before it runs (the caller may not call it, or the
   * arguments are invalid, checked with their defaults applied in place); undefined when it would
   * run. Asked before a call waits for an approval, so that nobody is asked to allow a call that
   * could not run.
   */
  refusal(tool: RegisteredTool, args: Record<string, unknown>, authInfo: AuthInfo | undefined): CallToolResult | undefined {
    const refused = this.callerRefusal(tool, callerFromAuthInfo(authInfo));
    if (refused) return refused;
    const problems = tool.validate(args);
    return problems.length ? errorResult(`Invalid arguments for tool "${tool.descriptor.name}": ${describeProblems(problems)}`) : undefined;
  }

  /** Runs the call, then tells the access log, the metrics and the exchange's outcome how it ended. */
  private async observed(
    name: string,
    caller: UserInfo | undefined,
    authInfo: AuthInfo | undefined,
    run: () => Promise<CallToolResult | InputRequiredResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const started = performance.now();
    let result: CallToolResult | InputRequiredResult;
    try {
      result = await run();
    } catch (error) {
      if (error instanceof InternalToolError) {
        this.metrics?.toolCall(name, 'internal_error');
        outcomeFromAuthInfo(authInfo)?.note(String(ProtocolErrorCode.InternalError));
        if (caller) {
          const durationMs = performance.now() - started;
          this.observer?.toolCalled({ caller, tool: name, success: false, durationMs, requestId: requestIdFromAuthInfo(authInfo), error: SERVER_FAILURE });
        }
      }
      throw error;
    }
    const success = !('isError' in result && result.isError);
    const cancelled = cancelledCalls.has(result as CallToolResult);
    this.metrics?.toolCall(name, success ? 'ok' : cancelled ? 'cancelled' : 'tool_error');
    if (!success) outcomeFromAuthInfo(authInfo)?.note(cancelled ? 'cancelled' : 'tool_error');
    if (caller && this.observer) {
      const event = { caller, tool: name, success, durationMs: performance.now() - started, requestId: requestIdFromAuthInfo(authInfo) };
      this.observer.toolCalled(success ? event : { ...event, error: loggedError(result as CallToolResult) });
    }
    return result;
  }

  private async run(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    caller: UserInfo | undefined,
    sessionId: string | undefined,
    requestId: string | undefined,
    sdk: ServerContext | undefined,
    options: ToolCallOptions,
  ) {
    const { name } = tool.descriptor;
    const problems = tool.validate(args);
    if (problems.length) return errorResult(`Invalid arguments for tool "${name}": ${describeProblems(problems)}`);
    try {
      const invoked = tool.invoke(...this.positionalArguments(tool.descriptor, args, caller, sessionId, sdk));
      // A method that is not async answers at once: no microtask turn for it.
      const returned = isThenable(invoked) ? await invoked : invoked;
      return toCallToolResult(returned, tool.definition.outputSchema);
    } catch (error) {
      // A stopped call's tool throws on its way out (usually the signal's reason): that is the stop, not a failure.
      if (sdk?.mcpReq.signal.aborted) {
        const result = cancelledCall(name, requestId ?? randomUUID(), this.logger, sdk.mcpReq.signal.reason);
        cancelledCalls.add(result);
        return result;
      }
      const failure = toolFailure(error, name, requestId ?? randomUUID(), this.logger, args);
      if (failure.internal && options.internalErrors === 'throw') throw new InternalToolError(failure.result);
      if (failure.internal) serverFailures.add(failure.result);
      return failure.result;
    }
  }

  private positionalArguments(
    descriptor: ToolDescriptor,
    args: Record<string, unknown>,
    caller: UserInfo | undefined,
    sessionId: string | undefined,
    sdk?: ServerContext,
  ): unknown[] {
    return descriptor.parameters.map((parameter) => {
      switch (parameter.kind) {
        case 'arg':
          return args[parameter.name!];
        case 'caller': {
          const session = sessionId ?? caller?.sessionId;
          return { ...caller, sessionId: session, conversationId: caller?.conversationId ?? session };
        }
        case 'context':
          if (!sdk) throw new Error(`Tool ${descriptor.name} takes a tool context and was called without one`);
          return new McpToolContext(sdk);
      }
    });
  }

  /**
   * Calls a tool from code in this process (an agent loop, a scheduled job) with the rules of
   * `/mcp`: the agent's lists, argument validation, the caller requirement, enhancers, result
   * mapping. An unknown or hidden tool throws like `tools/call` answers it.
   */
  call(
    name: string,
    args: Record<string, unknown>,
    caller: UserInfo | undefined,
    options: InProcessCallOptions = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    const agent = options.agent ?? caller?.agent;
    return this.callTool(name, args, inProcessContext(caller, agent, options.signal ?? new AbortController().signal, options.requestId));
  }

  /**
   * The tools the agent sees, as `listTools` filters them for a caller's `scopes`, described for a
   * console; then the tools of disabled classes the same lists and scopes would let it see.
   */
  toolSummaries(agent?: string, scopes?: readonly string[]): ToolSummary[] {
    const enabled = this.listTools(agent, scopes).tools.map((tool) => summarizeTool(this.tools.get(tool.name)!.descriptor));
    const disabled = this.disabledTools.filter(
      (tool) => this.visibility.allows(tool.name, agent) && missingScopes(scopes && { scopes }, tool.scopes).length === 0,
    );
    return [...enabled, ...disabled.map(summarizeDisabledTool)];
  }

  /** Whether `name` is a tool of a class disabled at start-up (which no call reaches) that the agent's lists let it see. */
  isDisabledTool(name: string, agent?: string): boolean {
    return this.visibility.allows(name, agent) && this.disabledTools.some((tool) => tool.name === name);
  }

  /** Where each tool the agent sees comes from: `packaged`, or its file in a tool directory. */
  origins(agent?: string): Record<string, string> {
    return Object.fromEntries(this.listTools(agent).tools.map((tool) => [tool.name, describeOrigin(this.tools.get(tool.name)!.descriptor.origin)]));
  }

  /** The agent's tools in one of the catalog formats, with each tool's origin (`GET /admin/tools`). */
  catalogFor(format: CatalogFormat, agent?: string): ToolCatalog {
    return formatCatalog(this.listTools(agent).tools, this.origins(agent), format, agent);
  }

  /** The agent's tools as OpenAI Chat Completions function tools. */
  toOpenAiChatTools(agent?: string) {
    return this.listTools(agent).tools.map(toOpenAiChatFunction);
  }

  /** The agent's tools as OpenAI Responses API function tools. */
  toOpenAiResponsesTools(agent?: string) {
    return this.listTools(agent).tools.map(toOpenAiResponsesFunction);
  }

  /** The agent's tools as Gemini function declarations. */
  toGeminiFunctionDeclarations(agent?: string) {
    return this.listTools(agent).tools.map(toGeminiFunction);
  }
}

/** What the access log keeps of a failed call: a failure of the server's by that name only, a tool error's message cut short. */
function loggedError(result: CallToolResult): string {
  if (serverFailures.has(result)) return SERVER_FAILURE;
  if (cancelledCalls.has(result)) return CANCELLED;
  const text = result.content.find((part) => part.type === 'text')?.text ?? 'Tool error';
  return text.length > MAX_LOGGED_ERROR_CHARS ? `${text.slice(0, MAX_LOGGED_ERROR_CHARS)}…` : text;
}

/** The one wording of a call refused for missing scopes, on `/mcp` (HTTP 403) and in a tool result alike. */
export function insufficientScope(tool: string, missing: readonly string[]): string {
  return `Insufficient scope: tool "${tool}" needs ${missing.map((scope) => `"${scope}"`).join(', ')}, which your token does not grant`;
}

/** What a call of a tool with an approval policy answers where no approval can be asked for (an in-process or REST call, a server without `McpApprovalsModule`). */
export function approvalRequired(tool: string, policy: 'caller' | 'approver'): string {
  const who = policy === 'caller' ? 'your confirmation' : "an approver's decision";
  return `Tool "${tool}" runs only after ${who}, which can be asked for on /mcp alone: call it there`;
}

/** True when the tool takes `@ToolContext()` (progress, elicitation, sampling): it needs the SDK's request context. */
export function takesContext(tool: RegisteredTool): boolean {
  return tool.descriptor.parameters.some((parameter) => parameter.kind === 'context');
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
