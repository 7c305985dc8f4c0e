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
import { McpToolContext } from '../context/mcp-tool-context.js';
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

/** Resources, resource templates, prompts and completions, with their list payloads built once. */
export class McpCatalog {
  private readonly resources: Map<string, ResourceDescriptor>;
  private readonly templates: { descriptor: ResourceTemplateDescriptor; template: UriTemplate }[];
  private readonly prompts: Map<string, PromptDescriptor>;
  private readonly completions: Map<string, CompletionDescriptor>;
  readonly resourceList: ListResourcesResult;
  readonly templateList: ListResourceTemplatesResult;
  readonly promptList: ListPromptsResult;

  constructor(found: DiscoveredCapabilities) {
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

  get hasResources(): boolean {
    return this.resources.size + this.templates.length > 0;
  }

  get hasPrompts(): boolean {
    return this.prompts.size > 0;
  }

  get hasCompletions(): boolean {
    return this.completions.size > 0;
  }

  async readResource(uri: string, sdk: ServerContext): Promise<ReadResourceResult> {
    const fixed = this.resources.get(uri);
    if (fixed) return toReadResult(await call(fixed, uri, new McpToolContext(sdk)), uri, fixed.options.mimeType);
    for (const { descriptor, template } of this.templates) {
      const variables = template.match(uri);
      if (variables) return toReadResult(await call(descriptor, uri, variables, new McpToolContext(sdk)), uri, descriptor.options.mimeType);
    }
    throw new ResourceNotFoundError(uri, `Resource not found: ${uri}`);
  }

  async getPrompt(name: string, args: Record<string, string> | undefined, sdk: ServerContext): Promise<GetPromptResult> {
    const prompt = this.prompts.get(name);
    if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const missing = (prompt.options.arguments ?? []).filter((argument) => argument.required && args?.[argument.name] === undefined);
    if (missing.length) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Missing required argument(s) for prompt "${name}": ${missing.map((argument) => argument.name).join(', ')}`);
    }
    return (await call(prompt, args ?? {}, new McpToolContext(sdk))) as GetPromptResult;
  }

  async complete(params: CompleteRequestParams): Promise<CompleteResult> {
    const ref = params.ref.type === 'ref/prompt' ? { type: 'ref/prompt' as const, name: params.ref.name } : { type: 'ref/resource' as const, uri: params.ref.uri };
    const completion = this.completions.get(`${completionRefKey(ref)}#${params.argument.name}`);
    if (!completion) return { completion: { values: [], total: 0, hasMore: false } };
    const values = (await call(completion, params.argument.value, params.context?.arguments ?? {})) as string[];
    return { completion: { values: values.slice(0, MAX_COMPLETION_VALUES), total: values.length, hasMore: values.length > MAX_COMPLETION_VALUES } };
  }
}

/** Resource methods may return a full `ReadResourceResult` or just the text of the resource. */
function toReadResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  if (typeof value === 'string') return { contents: [{ uri, text: value, ...(mimeType ? { mimeType } : {}) }] };
  return value as ReadResourceResult;
}
