import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  isInputRequiredResult,
  Server,
  type CallToolRequest,
  type CallToolResult,
  type Implementation,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { agentFromAuthInfo, callerFromAuthInfo } from '../caller.js';
import { McpApprovals } from '../approvals/mcp-approvals.service.js';
import { McpRegistry, type RegisteredTool } from '../registry/mcp-registry.js';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from '../mcp.options.js';
import { McpRequestState } from './mcp-request-state.js';
import { takeHandedOverResult } from './handed-over-result.js';
import { McpTasks } from '../tasks/mcp-tasks.service.js';
import { isCreateTaskResult, TASKS_EXTENSION } from '../tasks/task-wire.js';

/**
 * Builds SDK `Server` instances whose handlers read the registry. Construction only attaches
 * closures: schemas, validators and list payloads were built once at bootstrap.
 */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly registry: McpRegistry,
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    @Optional() private readonly requestState?: McpRequestState,
    // `McpTasksModule`, when the app imports it into this module: without it, task tools run as any tool.
    @Optional() private readonly tasks?: McpTasks,
    // `McpApprovalsModule`: without it, a tool with an approval policy refuses every call.
    @Optional() private readonly approvals?: McpApprovals,
  ) {}

  get serverInfo(): Implementation {
    return this.options.serverInfo;
  }

  create(): Server {
    const { registry } = this;
    const { catalog } = registry;
    const server = new Server(this.options.serverInfo, {
      capabilities: this.capabilities(),
      ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
      ...this.requestStateOption(),
    });
    const agentOf = (ctx: ServerContext) => agentFromAuthInfo(ctx.http?.authInfo);
    server.setRequestHandler('tools/list', async (_request, ctx) => registry.listTools(agentOf(ctx), callerFromAuthInfo(ctx.http?.authInfo)?.scopes));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const result = takeHandedOverResult(ctx.http?.authInfo) ?? (await this.callTool(request.params, ctx, server));
      // The SDK's types know the 2025 task result (a nested `task`) only; its 2026 codec passes the flat one on.
      if (isCreateTaskResult(result)) return result as unknown as CallToolResult;
      if (isInputRequiredResult(result)) return result;
      return server.projectCallToolResult(result, registry.getTool(request.params.name)?.definition.outputSchema);
    });
    if (catalog.hasResources) {
      server.setRequestHandler('resources/list', async (_request, ctx) => catalog.resourceListFor(agentOf(ctx)));
      server.setRequestHandler('resources/templates/list', async (_request, ctx) => catalog.templateListFor(agentOf(ctx)));
      server.setRequestHandler('resources/read', async (request, ctx) => catalog.readResource(request.params.uri, ctx));
      server.setRequestHandler('resources/subscribe', async () => ({}));
      server.setRequestHandler('resources/unsubscribe', async () => ({}));
    }
    if (catalog.hasPrompts) {
      server.setRequestHandler('prompts/list', async (_request, ctx) => catalog.promptListFor(agentOf(ctx)));
      server.setRequestHandler('prompts/get', async (request, ctx) => catalog.getPrompt(request.params.name, request.params.arguments, ctx));
    }
    if (catalog.hasCompletions) server.setRequestHandler('completion/complete', async (request, ctx) => catalog.complete(request.params, ctx));
    this.tasks?.register(server);
    return server;
  }

  /** A task tool's call goes through the tasks extension, which may answer it with a task; one with an approval policy through the approvals. */
  private callTool({ name, arguments: args }: CallToolRequest['params'], ctx: ServerContext, server: Server) {
    const tool = this.registry.getTool(name, agentFromAuthInfo(ctx.http?.authInfo));
    if (tool?.descriptor.approval && this.approvals) return this.callWithApproval(tool, { ...args }, ctx, server);
    const support = this.tasks && tool?.descriptor.options.task;
    if (!support) return this.registry.callTool(name, args, ctx);
    return this.tasks!.call({ name, support }, ctx, (context) => this.registry.callTool(name, args, context, { internalErrors: 'throw' }));
  }

  /** Nobody is asked to allow a call that could not run: the caller and the arguments are checked first. */
  private callWithApproval(tool: RegisteredTool, args: Record<string, unknown>, ctx: ServerContext, server: Server) {
    const refusal = this.registry.refusal(tool, args, ctx.http?.authInfo);
    if (refusal) return refusal;
    const { name } = tool.descriptor;
    return this.approvals!.call(
      {
        tool: tool.descriptor,
        args,
        // Only a 2025 session's own server knows its client's capabilities; the shared server of session-less requests never does.
        sessionElicits: ctx.sessionId !== undefined && server.getClientCapabilities()?.elicitation !== undefined,
        run: (context, inTask) => this.registry.callTool(name, args, context, { approval: 'granted', ...(inTask ? { internalErrors: 'throw' as const } : {}) }),
      },
      ctx,
    );
  }

  /** Echoed requestState is untrusted: unless the application verifies it itself, only state we signed is accepted. */
  private requestStateOption() {
    const verify = this.options.requestStateVerify ?? this.requestState?.verify;
    return verify ? { requestState: { verify } } : {};
  }

  private capabilities(): ServerCapabilities {
    const { catalog } = this.registry;
    return {
      tools: {},
      logging: {},
      ...(catalog.hasResources ? { resources: { subscribe: true } } : {}),
      ...(catalog.hasPrompts ? { prompts: {} } : {}),
      ...(catalog.hasCompletions ? { completions: {} } : {}),
      ...(this.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
    };
  }
}
