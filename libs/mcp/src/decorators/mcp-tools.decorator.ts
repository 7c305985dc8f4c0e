import { Injectable, type ScopeOptions } from '@nestjs/common';
import { MCP_TOOL_CLASS_METADATA } from './constants.js';

/**
 * Marks a class whose methods declare tools, resources or prompts, whatever its name, and makes it
 * injectable (as `@CommandHandler` does in `@nestjs/cqrs`). Undecorated classes are explored when
 * their name ends in `Service`, the convention of the engine the contract comes from.
 */
export function McpTools(options?: ScopeOptions): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(MCP_TOOL_CLASS_METADATA, true, target);
    Injectable(options)(target);
  };
}
