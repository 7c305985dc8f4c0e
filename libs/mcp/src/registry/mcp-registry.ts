import { Inject, Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequiredResult,
  type ListToolsResult,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { callerFromAuthInfo, MCP_CALL_OBSERVER, type McpCallObserver, type UserInfo } from '../caller.js';
import { McpToolContext } from '../context/mcp-tool-context.js';
import type { DiscoveredCapabilities, ToolDescriptor } from '../explorer/descriptors.js';
import { McpExplorer } from '../explorer/mcp-explorer.service.js';
import { ToolDefinitionError } from '../schema/tool-definition.error.js';
import { ArgumentValidator } from './argument-validator.js';
import { toGeminiFunction, toOpenAiChatFunction, toOpenAiResponsesFunction } from './llm-functions.js';
import { McpCatalog } from './mcp-catalog.js';
import { createToolInvoker, type ToolInvoker } from './tool-invoker.js';
import { errorResult, toCallToolResult } from './tool-result.js';

export interface RegisteredTool {
  readonly descriptor: ToolDescriptor;
  /** The entry published in `tools/list`. */
  readonly definition: Tool;
  readonly validate: (args: Record<string, unknown>) => string | undefined;
  readonly invoke: ToolInvoker;
}

export const AUTHENTICATION_REQUIRED = 'Authentication required: this tool acts for a user; send a bearer token or MCP secret';

/**
 * Holds every tool, resource and prompt, with compiled validators and the ready-made `tools/list`
 * payload. Built once at bootstrap; nothing in it is rebuilt per request.
 */
@Injectable()
export class McpRegistry implements OnModuleInit {
  private readonly logger = new Logger('McpRegistry');
  private readonly tools = new Map<string, RegisteredTool>();
  private listResult: ListToolsResult = { tools: [] };
  catalog = new McpCatalog({ tools: [], resources: [], resourceTemplates: [], prompts: [], completions: [] });

  constructor(
    private readonly explorer: McpExplorer,
    private readonly contextCreator: ExternalContextCreator,
    @Optional() @Inject(MCP_CALL_OBSERVER) private readonly observer?: McpCallObserver,
  ) {}

  onModuleInit(): void {
    this.load(this.explorer.explore());
  }

  /** Replaces the registry's contents; used at bootstrap and by tests that assemble capabilities by hand. */
  load(found: DiscoveredCapabilities): void {
    const validator = new ArgumentValidator();
    this.tools.clear();
    for (const descriptor of found.tools) {
      this.tools.set(descriptor.name, {
        descriptor,
        definition: toToolDefinition(descriptor),
        validate: compileOrExplain(validator, descriptor),
        invoke: createToolInvoker(descriptor, this.contextCreator),
      });
    }
    this.listResult = Object.freeze({ tools: [...this.tools.values()].map((tool) => tool.definition) });
    this.catalog = new McpCatalog(found);
  }

  get size(): number {
    return this.tools.size;
  }

  get hasTools(): boolean {
    return this.tools.size > 0;
  }

  listTools(): ListToolsResult {
    return this.listResult;
  }

  getTool(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  /** Validates, resolves the caller, runs the tool and maps its result; a failing tool never escapes as an exception. */
  async callTool(name: string, rawArgs: unknown, sdk: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const tool = this.tools.get(name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return this.callRegistered(tool, rawArgs, callerFromAuthInfo(sdk.http?.authInfo), sdk.sessionId, sdk);
  }

  /**
   * `callTool` for a caller that has no SDK context (the HTTP fast lane): only for tools that
   * do not take one (see `takesContext`).
   */
  async callRegistered(
    tool: RegisteredTool,
    rawArgs: unknown,
    caller: UserInfo | undefined,
    sessionId: string | undefined,
    sdk?: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const name = tool.descriptor.name;
    if (tool.descriptor.requiresCaller && !caller) return errorResult(AUTHENTICATION_REQUIRED);
    const started = performance.now();
    const result = await this.run(tool, (rawArgs ?? {}) as Record<string, unknown>, caller, sessionId, sdk);
    if (caller && this.observer) {
      this.observer.toolCalled({ caller, tool: name, success: !('isError' in result && result.isError), durationMs: performance.now() - started });
    }
    return result;
  }

  private async run(tool: RegisteredTool, args: Record<string, unknown>, caller: UserInfo | undefined, sessionId: string | undefined, sdk?: ServerContext) {
    const { name } = tool.descriptor;
    const problem = tool.validate(args);
    if (problem) return errorResult(`Invalid arguments for tool "${name}": ${problem}`);
    try {
      const returned = await tool.invoke(...this.positionalArguments(tool.descriptor, args, caller, sessionId, sdk));
      return toCallToolResult(returned, tool.definition.outputSchema);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Tool ${name} failed: ${message}`);
      return errorResult(message);
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
        case 'caller':
          return { ...caller, sessionId: sessionId ?? caller?.sessionId };
        case 'context':
          if (!sdk) throw new Error(`Tool ${descriptor.name} takes a tool context and was called without one`);
          return new McpToolContext(sdk);
      }
    });
  }

  /** Tools as OpenAI Chat Completions function tools. */
  toOpenAiChatTools() {
    return this.functionSources().map(toOpenAiChatFunction);
  }

  /** Tools as OpenAI Responses API function tools. */
  toOpenAiResponsesTools() {
    return this.functionSources().map(toOpenAiResponsesFunction);
  }

  /** Tools as Gemini function declarations. */
  toGeminiFunctionDeclarations() {
    return this.functionSources().map(toGeminiFunction);
  }

  private functionSources() {
    return [...this.tools.values()].map(({ definition }) => ({
      name: definition.name,
      description: definition.description,
      inputSchema: definition.inputSchema as Record<string, unknown>,
    }));
  }
}

/** True when the tool takes `@ToolContext()` (progress, elicitation, sampling): it needs the SDK's request context. */
export function takesContext(tool: RegisteredTool): boolean {
  return tool.descriptor.parameters.some((parameter) => parameter.kind === 'context');
}

function toToolDefinition(descriptor: ToolDescriptor): Tool {
  const { options } = descriptor;
  return Object.freeze({
    name: descriptor.name,
    ...(options.title ? { title: options.title } : {}),
    ...(options.description ? { description: options.description } : {}),
    inputSchema: descriptor.inputSchema as Tool['inputSchema'],
    ...(options.outputSchema ? { outputSchema: options.outputSchema as Tool['outputSchema'] } : {}),
    ...(options.annotations ? { annotations: options.annotations } : {}),
    ...(options.meta ? { _meta: options.meta } : {}),
  });
}

function compileOrExplain(validator: ArgumentValidator, descriptor: ToolDescriptor): RegisteredTool['validate'] {
  try {
    return validator.compile(descriptor.inputSchema);
  } catch (error) {
    throw new ToolDefinitionError(
      `${descriptor.className}.${descriptor.methodName}`,
      `its input schema is not valid JSON Schema (${(error as Error).message})`,
      'correct the inputSchema option',
    );
  }
}
