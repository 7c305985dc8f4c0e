import { MCP_TOOL_METADATA } from './constants.js';
import { createMethodDecorator } from './create-metadata-decorator.js';
import type { ToolOptions } from './metadata.types.js';

/** Marks a public method of an `@Injectable() *Service` provider as an MCP tool. */
export const McpTool = (options: ToolOptions = {}): MethodDecorator => createMethodDecorator(MCP_TOOL_METADATA, options);
