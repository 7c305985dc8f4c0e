import { MCP_COMPLETION_METADATA, MCP_PROMPT_METADATA, MCP_RESOURCE_METADATA, MCP_RESOURCE_TEMPLATE_METADATA } from './constants.js';
import { createMethodDecorator } from './create-metadata-decorator.js';
import type { CompletionOptions, PromptOptions, ResourceOptions, ResourceTemplateOptions } from './metadata.types.js';

/** A fixed resource; the method receives `(uri, context)` and returns `ReadResourceResult` contents. */
export const McpResource = (options: ResourceOptions): MethodDecorator => createMethodDecorator(MCP_RESOURCE_METADATA, options);

/** A resource template (RFC 6570); the method receives `(uri, variables, context)`. */
export const McpResourceTemplate = (options: ResourceTemplateOptions): MethodDecorator => createMethodDecorator(MCP_RESOURCE_TEMPLATE_METADATA, options);

/** A prompt; the method receives `(args, context)` and returns `GetPromptResult`. */
export const McpPrompt = (options: PromptOptions = {}): MethodDecorator => createMethodDecorator(MCP_PROMPT_METADATA, options);

/** Completes one argument of a prompt or resource template; the method receives `(value, context)` and returns candidate strings. */
export const McpCompletion = (options: CompletionOptions): MethodDecorator => createMethodDecorator(MCP_COMPLETION_METADATA, options);
