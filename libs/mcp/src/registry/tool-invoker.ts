import { GUARDS_METADATA, INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import type { ExternalContextCreator } from '@nestjs/core';
import type { ToolDescriptor } from '../explorer/descriptors.js';

export type ToolInvoker = (...args: unknown[]) => Promise<unknown>;

/** Execution-context type guards and interceptors see for tool calls (`context.getType() === 'mcp'`). */
export const MCP_CONTEXT_TYPE = 'mcp';

function hasEnhancers(descriptor: ToolDescriptor): boolean {
  const method = (descriptor.instance as Record<string, unknown>)[descriptor.methodName] as object;
  const owner = descriptor.instance.constructor;
  return [GUARDS_METADATA, INTERCEPTORS_METADATA].some(
    (key) => (Reflect.getMetadata(key, method)?.length ?? 0) > 0 || (Reflect.getMetadata(key, owner)?.length ?? 0) > 0,
  );
}

/**
 * Calls the tool method directly when it has no guards or interceptors, otherwise through Nest's
 * external context so `@UseGuards()` and `@UseInterceptors()` on the method or class apply.
 */
export function createToolInvoker(descriptor: ToolDescriptor, contextCreator: ExternalContextCreator): ToolInvoker {
  const method = (descriptor.instance as Record<string, (...args: unknown[]) => unknown>)[descriptor.methodName];
  if (!hasEnhancers(descriptor)) return async (...args) => method.apply(descriptor.instance, args);
  return contextCreator.create(
    descriptor.instance,
    method,
    descriptor.methodName,
    undefined,
    undefined,
    undefined,
    undefined,
    { guards: true, interceptors: true, filters: false },
    MCP_CONTEXT_TYPE,
  );
}
