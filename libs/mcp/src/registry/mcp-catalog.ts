import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  UriTemplate,
  type CompleteRequestParams,
  type CompleteResult,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { agentFromAuthInfo } from '../caller.js';
import { McpToolContext } from '../context/mcp-tool-context.js';
import { ToolVisibility } from '../visibility/tool-visibility.js';
import {
  completionRefKey,
  type CompletionDescriptor,
  type DiscoveredCapabilities,
  type PromptDescriptor,
  type ResourceDescriptor,
  type ResourceTemplateDescriptor,
} from '../explorer/descriptors.js';

type Handler = (...args: unknown[]) => unknown;
const MAX_COMPLETION_VALUES = 100;

function call(descriptor: { instance: object; methodName: string }, ...args: unknown[]): Promise<unknown> {
  const method = (descriptor.instance as Record<string, Handler>)[descriptor.methodName];
  return Promise.resolve(method.apply(descriptor.instance, args));
}

/**
 * Resources, resource templates, prompts and completions, with their list payloads built once (and
 * once per agent with tool lists, which name resources and prompts by their `name` as they do tools).
 */
export class McpCatalog {
  private readonly resources: Map<string, ResourceDescriptor>;
  private readonly templates: { descriptor: ResourceTemplateDescriptor; template: UriTemplate }[];
  private readonly prompts: Map<string, PromptDescriptor>;
  private readonly completions: Map<string, CompletionDescriptor>;
  readonly resourceList: ListResourcesResult;
  readonly templateList: ListResourceTemplatesResult;
  readonly promptList: ListPromptsResult;
  private readonly views = {
    resources: new Map<string, ListResourcesResult>(),
    templates: new Map<string, ListResourceTemplatesResult>(),
    prompts: new Map<string, ListPromptsResult>(),
  };

  constructor(
    found: DiscoveredCapabilities,
    private readonly visibility = new ToolVisibility(),
  ) {
    this.resources = new Map(found.resources.map((resource) => [resource.options.uri, resource]));
    this.templates = found.resourceTemplates.map((descriptor) => ({ descriptor, template: new UriTemplate(descriptor.options.uriTemplate) }));
    this.prompts = new Map(found.prompts.map((prompt) => [prompt.name, prompt]));
    this.completions = new Map(found.completions.map((completion) => [`${completion.refKey}#${completion.argument}`, completion]));
    this.resourceList = Object.freeze({ resources: found.resources.map(({ options }) => ({ ...options })) });
    this.templateList = Object.freeze({ resourceTemplates: found.resourceTemplates.map(({ options }) => ({ ...options })) });
    this.promptList = Object.freeze({
      prompts: found.prompts.map(({ name, options }) => ({
        name,
        ...(options.title ? { title: options.title } : {}),
        ...(options.description ? { description: options.description } : {}),
        ...(options.arguments ? { arguments: options.arguments } : {}),
      })),
    });
  }

  resourceListFor(agent: string | undefined): ListResourcesResult {
    return this.visibility.view(this.views.resources, agent, this.resourceList, (allows) =>
      Object.freeze({ resources: this.resourceList.resources.filter((resource) => allows(resource.name)) }),
    );
  }

  templateListFor(agent: string | undefined): ListResourceTemplatesResult {
    return this.visibility.view(this.views.templates, agent, this.templateList, (allows) =>
      Object.freeze({ resourceTemplates: this.templateList.resourceTemplates.filter((template) => allows(template.name)) }),
    );
  }

  promptListFor(agent: string | undefined): ListPromptsResult {
    return this.visibility.view(this.views.prompts, agent, this.promptList, (allows) =>
      Object.freeze({ prompts: this.promptList.prompts.filter((prompt) => allows(prompt.name)) }),
    );
  }

  get hasResources(): boolean {
    return this.resources.size + this.templates.length > 0;
  }

  get hasPrompts(): boolean {
    return this.prompts.size > 0;
  }

  get hasCompletions(): boolean {
    return this.completions.size > 0;
  }

  /** A resource the caller's agent may not see is not found, exactly like a missing one. */
  async readResource(uri: string, sdk: ServerContext): Promise<ReadResourceResult> {
    const agent = agentFromAuthInfo(sdk.http?.authInfo);
    const fixed = this.resources.get(uri);
    if (fixed && this.visibility.allows(fixed.options.name, agent))
      return toReadResult(await call(fixed, uri, new McpToolContext(sdk)), uri, fixed.options.mimeType);
    for (const { descriptor, template } of this.templates) {
      const variables = this.visibility.allows(descriptor.options.name, agent) ? template.match(uri) : null;
      if (variables) return toReadResult(await call(descriptor, uri, variables, new McpToolContext(sdk)), uri, descriptor.options.mimeType);
    }
    throw new ResourceNotFoundError(uri, `Resource not found: ${uri}`);
  }

  async getPrompt(name: string, args: Record<string, string> | undefined, sdk: ServerContext): Promise<GetPromptResult> {
    const prompt = this.visibility.allows(name, agentFromAuthInfo(sdk.http?.authInfo)) ? this.prompts.get(name) : undefined;
    if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const missing = (prompt.options.arguments ?? []).filter((argument) => argument.required && args?.[argument.name] === undefined);
    if (missing.length) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Missing required argument(s) for prompt "${name}": ${missing.map((argument) => argument.name).join(', ')}`,
      );
    }
    return (await call(prompt, args ?? {}, new McpToolContext(sdk))) as GetPromptResult;
  }

  /** Completes an argument of a prompt or resource template the caller's agent may see; nothing for one it may not. */
  async complete(params: CompleteRequestParams, sdk?: ServerContext): Promise<CompleteResult> {
    const ref =
      params.ref.type === 'ref/prompt' ? { type: 'ref/prompt' as const, name: params.ref.name } : { type: 'ref/resource' as const, uri: params.ref.uri };
    const completion = this.visibility.allows(this.nameOf(ref), agentFromAuthInfo(sdk?.http?.authInfo))
      ? this.completions.get(`${completionRefKey(ref)}#${params.argument.name}`)
      : undefined;
    if (!completion) return { completion: { values: [], total: 0, hasMore: false } };
    const values = (await call(completion, params.argument.value, params.context?.arguments ?? {})) as string[];
    return { completion: { values: values.slice(0, MAX_COMPLETION_VALUES), total: values.length, hasMore: values.length > MAX_COMPLETION_VALUES } };
  }

  /** The name agent lists use for what a completion refers to: the prompt's, or the resource's or template's. */
  private nameOf(ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }): string {
    if (ref.type === 'ref/prompt') return ref.name;
    const template = this.templates.find(({ descriptor }) => descriptor.options.uriTemplate === ref.uri);
    return template?.descriptor.options.name ?? this.resources.get(ref.uri)?.options.name ?? ref.uri;
  }
}

/** Resource methods may return a full `ReadResourceResult` or just the text of the resource. */
function toReadResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  if (typeof value === 'string') return { contents: [{ uri, text: value, ...(mimeType ? { mimeType } : {}) }] };
  return value as ReadResourceResult;
}
