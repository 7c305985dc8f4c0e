import { Inject, Injectable, Optional } from '@nestjs/common';
import { isInputRequiredResult, Server, type Implementation, type ServerCapabilities, type ServerContext } from '@modelcontextprotocol/server';
import { agentFromAuthInfo, callerFromAuthInfo } from '../caller.js';
import { McpRegistry } from '../registry/mcp-registry.js';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from '../mcp.options.js';
import { McpRequestState } from './mcp-request-state.js';
import { takeHandedOverResult } from './handed-over-result.js';

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
      const result = takeHandedOverResult(ctx.http?.authInfo) ?? (await registry.callTool(request.params.name, request.params.arguments, ctx));
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
    return server;
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
    };
  }
}
