import { Injectable, type ScopeOptions } from '@nestjs/common';
import { MCP_TOOL_CLASS_APPROVAL_METADATA, MCP_TOOL_CLASS_METADATA, MCP_TOOL_CLASS_SCOPES_METADATA } from './constants.js';
import type { ApprovalPolicy } from './metadata.types.js';

export interface McpToolsOptions extends ScopeOptions {
  /** OAuth scopes every tool of the class requires, besides its own (see `ToolOptions.scopes`). */
  scopes?: readonly string[];
  /** The approval policy of every tool of the class that names none of its own (see `ToolOptions.approval`). */
  approval?: ApprovalPolicy;
}

/**
 * Marks a class whose methods declare tools, resources or prompts, whatever its name, and makes it
 * injectable (as `@CommandHandler` does in `@nestjs/cqrs`). Undecorated classes are explored when
 * their name ends in `Service`, the convention of the engine the contract comes from.
 */
export function McpTools({ scopes, approval, ...injection }: McpToolsOptions = {}): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(MCP_TOOL_CLASS_METADATA, true, target);
    if (scopes) Reflect.defineMetadata(MCP_TOOL_CLASS_SCOPES_METADATA, scopes, target);
    if (approval) Reflect.defineMetadata(MCP_TOOL_CLASS_APPROVAL_METADATA, approval, target);
    Injectable(injection)(target);
  };
}
