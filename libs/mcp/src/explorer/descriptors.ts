import type { ToolOrigin } from '../tool-directories/tool-origin.js';
import type {
  ApprovalPolicy,
  JsonSchema,
  PromptOptions,
  ResourceOptions,
  ResourceTemplateOptions,
  ToolOptions,
  ToolParameterMetadata,
} from '../decorators/metadata.types.js';

/** Everything the registry needs to publish and call one tool; built once at bootstrap. */
export interface ToolDescriptor {
  readonly name: string;
  readonly className: string;
  readonly methodName: string;
  readonly instance: object;
  readonly options: ToolOptions;
  readonly parameters: readonly ToolParameterMetadata[];
  readonly inputSchema: JsonSchema;
  /** True when a parameter takes the authenticated caller, or the tool requires scopes or an approval. */
  readonly requiresCaller: boolean;
  /** The OAuth scopes a scoped caller needs for it (the class's and the method's), sorted; often none. */
  readonly scopes: readonly string[];
  /** Who must allow each call before it runs, as declared and then as the deployment's configuration sets it; none for most tools. */
  readonly approval?: ApprovalPolicy;
  readonly warnings: readonly string[];
  /** Packaged, or the tool-directory file that defined it. */
  readonly origin: ToolOrigin;
}

/**
 * A tool of a class that turned itself off at start-up (`static enabled()` answered false): known
 * so that it can be listed as disabled, never registered, so never callable.
 */
export interface DisabledToolDescriptor {
  readonly name: string;
  readonly className: string;
  readonly options: ToolOptions;
  readonly inputSchema: JsonSchema;
  readonly scopes: readonly string[];
  readonly approval?: ApprovalPolicy;
  /** True when a parameter takes the authenticated caller, or the tool requires scopes or an approval. */
  readonly actsForUser: boolean;
  readonly origin: ToolOrigin;
}

interface HandlerDescriptor {
  readonly className: string;
  readonly methodName: string;
  readonly instance: object;
  readonly origin: ToolOrigin;
}

export interface ResourceDescriptor extends HandlerDescriptor {
  readonly options: ResourceOptions;
}

export interface ResourceTemplateDescriptor extends HandlerDescriptor {
  readonly options: ResourceTemplateOptions;
}

export interface PromptDescriptor extends HandlerDescriptor {
  readonly name: string;
  readonly options: PromptOptions;
}

export interface CompletionDescriptor extends HandlerDescriptor {
  readonly refKey: string;
  readonly argument: string;
}

export interface DiscoveredCapabilities {
  tools: ToolDescriptor[];
  resources: ResourceDescriptor[];
  resourceTemplates: ResourceTemplateDescriptor[];
  prompts: PromptDescriptor[];
  completions: CompletionDescriptor[];
  /** The tools of classes skipped at start-up because they are disabled (none when not explored). */
  disabledTools?: DisabledToolDescriptor[];
}

export function completionRefKey(ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }): string {
  return ref.type === 'ref/prompt' ? `prompt:${ref.name}` : `resource:${ref.uri}`;
}
