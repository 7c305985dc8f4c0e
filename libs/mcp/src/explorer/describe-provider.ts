import { MetadataScanner } from '@nestjs/core';
import {
  MCP_ARGS_METADATA,
  MCP_COMPLETION_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_RESOURCE_TEMPLATE_METADATA,
  MCP_TOOL_CLASS_APPROVAL_METADATA,
  MCP_TOOL_CLASS_METADATA,
  MCP_TOOL_CLASS_SCOPES_METADATA,
  MCP_TOOL_METADATA,
} from '../decorators/constants.js';
import type {
  ApprovalPolicy,
  CompletionOptions,
  PromptOptions,
  ResourceOptions,
  ResourceTemplateOptions,
  ToolOptions,
  ToolParameterMetadata,
} from '../decorators/metadata.types.js';
import { buildInputSchema, toolParameters } from '../schema/build-input-schema.js';
import { recordedToolTypes, type ToolTypes } from '../types-plugin/tool-types.js';
import { ToolDefinitionError } from '../schema/tool-definition.error.js';
import { PACKAGED, type ToolOrigin } from '../tool-directories/tool-origin.js';
import { completionRefKey, type DiscoveredCapabilities, type ToolDescriptor } from './descriptors.js';

export const TOOL_CLASS_SUFFIX = 'Service';

/** A class the explorer reads: marked with `@McpTools()`, or named `*Service`. */
export function isToolClass(metatype: Function): boolean {
  return Reflect.getMetadata(MCP_TOOL_CLASS_METADATA, metatype) === true || metatype.name.endsWith(TOOL_CLASS_SUFFIX);
}

/** `countReadingsAboveGoal` → `count_readings_above_goal`; `getHTTPStatus` → `get_http_status`. */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

const scanner = new MetadataScanner();

/**
 * The methods a class declares itself. Inherited methods and those whose name starts with `_`
 * are never tools, as in the engine the contract comes from.
 */
export function ownPublicMethodNames(prototype: object): string[] {
  return scanner.getAllMethodNames(prototype).filter((name) => !name.startsWith('_') && Object.hasOwn(prototype, name));
}

/** True when any method of the class (its own or inherited) carries one of our decorators. */
export function hasMcpMetadata(prototype: object): boolean {
  const keys = [MCP_TOOL_METADATA, MCP_RESOURCE_METADATA, MCP_RESOURCE_TEMPLATE_METADATA, MCP_PROMPT_METADATA, MCP_COMPLETION_METADATA];
  for (let current = prototype; current && current !== Object.prototype; current = Object.getPrototypeOf(current)) {
    for (const name of Object.getOwnPropertyNames(current)) {
      const value = Object.getOwnPropertyDescriptor(current, name)?.value;
      if (typeof value === 'function' && keys.some((key) => Reflect.hasMetadata(key, value))) return true;
    }
  }
  return false;
}

/** RFC 6749's scope-token: printable ASCII but space, `"` and `\\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The scopes a tool requires: its class's and its own, each a valid scope token. */
function requiredScopes(owner: string, classScopes: readonly string[] = [], toolScopes: readonly string[] = []): string[] {
  const scopes = [...new Set([...classScopes, ...toolScopes])].sort();
  const invalid = scopes.find((scope) => typeof scope !== 'string' || !SCOPE_TOKEN.test(scope));
  if (invalid !== undefined) {
    throw new ToolDefinitionError(
      owner,
      `the scope ${JSON.stringify(invalid)} is not an OAuth scope token`,
      'use printable ASCII without spaces, quotes or backslashes, e.g. "files:read"',
    );
  }
  return scopes;
}

const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ['caller', 'approver'];

/** The tool's approval policy: its own, else its class's; a value that is no policy (a plain JavaScript tool's typo) stops its definition. */
function approvalPolicy(owner: string, classPolicy: unknown, toolPolicy: unknown): ApprovalPolicy | undefined {
  const policy = toolPolicy ?? classPolicy;
  if (policy === undefined || APPROVAL_POLICIES.includes(policy as ApprovalPolicy)) return policy as ApprovalPolicy | undefined;
  throw new ToolDefinitionError(
    owner,
    `the approval policy ${JSON.stringify(policy)} is none of ${APPROVAL_POLICIES.join(', ')}`,
    "write approval: 'caller' or approval: 'approver'",
  );
}

export function describeTool(instance: object, className: string, methodName: string, options: ToolOptions, origin: ToolOrigin = PACKAGED): ToolDescriptor {
  const prototype = Object.getPrototypeOf(instance);
  const owner = `${className}.${methodName}`;
  const decorated: ToolParameterMetadata[] = Reflect.getOwnMetadata(MCP_ARGS_METADATA, prototype, methodName) ?? [];
  const paramTypes: unknown[] = Reflect.getMetadata('design:paramtypes', prototype, methodName) ?? [];
  const types = recordedToolTypes(instance.constructor, methodName);
  const source = { owner, paramTypes, parameters: decorated, inputSchema: options.inputSchema, types };
  const { schema, warnings } = buildInputSchema(source);
  const parameters = toolParameters(source);
  const scopes = requiredScopes(owner, Reflect.getMetadata(MCP_TOOL_CLASS_SCOPES_METADATA, instance.constructor), options.scopes);
  const approval = approvalPolicy(owner, Reflect.getMetadata(MCP_TOOL_CLASS_APPROVAL_METADATA, instance.constructor), options.approval);
  return {
    name: options.name ?? toSnakeCase(methodName),
    className,
    methodName,
    instance,
    options: withDocumentation(options, types),
    parameters: [...parameters].sort((a, b) => a.index - b.index),
    inputSchema: schema,
    // A scoped tool is for callers whose token carries its scopes, and an approved one for a caller someone answers for: never for anonymous ones.
    requiresCaller: scopes.length > 0 || approval !== undefined || parameters.some((parameter) => parameter.kind === 'caller'),
    scopes,
    ...(approval ? { approval } : {}),
    warnings:
      options.description || types?.description ? warnings : [...warnings, `${owner}: tool has no description; models decide whether to call a tool from it`],
    origin,
  };
}

/**
 * The tool's options completed from what the types plugin read: the doc comment as the
 * description and the return type's output schema, where the decorator gives none. A description
 * option wins over the doc comment, which may then be a note for the code's readers.
 */
function withDocumentation(options: ToolOptions, types: ToolTypes | undefined): ToolOptions {
  if (!types) return options;
  return {
    ...options,
    ...(options.description === undefined && types.description ? { description: types.description } : {}),
    ...(options.outputSchema === undefined && types.output ? { outputSchema: types.output } : {}),
  };
}

/** Everything one provider instance contributes: tools, resources, templates, prompts and completions. */
export function describeProvider(instance: object, className: string, origin: ToolOrigin = PACKAGED): DiscoveredCapabilities {
  const prototype = Object.getPrototypeOf(instance);
  const found: DiscoveredCapabilities = { tools: [], resources: [], resourceTemplates: [], prompts: [], completions: [] };
  for (const methodName of ownPublicMethodNames(prototype)) {
    const method = prototype[methodName];
    const base = { className, methodName, instance, origin };
    const tool: ToolOptions | undefined = Reflect.getMetadata(MCP_TOOL_METADATA, method);
    if (tool) found.tools.push(describeTool(instance, className, methodName, tool, origin));
    const resource: ResourceOptions | undefined = Reflect.getMetadata(MCP_RESOURCE_METADATA, method);
    if (resource) found.resources.push({ ...base, options: resource });
    const template: ResourceTemplateOptions | undefined = Reflect.getMetadata(MCP_RESOURCE_TEMPLATE_METADATA, method);
    if (template) found.resourceTemplates.push({ ...base, options: template });
    const prompt: PromptOptions | undefined = Reflect.getMetadata(MCP_PROMPT_METADATA, method);
    if (prompt) found.prompts.push({ ...base, name: prompt.name ?? toSnakeCase(methodName), options: prompt });
    const completion: CompletionOptions | undefined = Reflect.getMetadata(MCP_COMPLETION_METADATA, method);
    if (completion) found.completions.push({ ...base, refKey: completionRefKey(completion.ref), argument: completion.argument });
  }
  return found;
}
