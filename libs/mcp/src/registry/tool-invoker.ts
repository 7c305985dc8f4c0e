import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA, INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import type { ExternalContextCreator } from '@nestjs/core';
import type { ToolDescriptor } from '../explorer/descriptors.js';

/** Calls the tool method: its value, or its promise (a method that is not async is not wrapped in one: the registry awaits either). */
export type ToolInvoker = (...args: unknown[]) => unknown;

/** Execution-context type guards and interceptors see for tool calls (`context.getType() === 'mcp'`). */
export const MCP_CONTEXT_TYPE = 'mcp';

function hasEnhancers(descriptor: ToolDescriptor): boolean {
  const method = (descriptor.instance as Record<string, unknown>)[descriptor.methodName] as object;
  const owner = descriptor.instance.constructor;
  return [GUARDS_METADATA, INTERCEPTORS_METADATA, EXCEPTION_FILTERS_METADATA].some(
    (key) => (Reflect.getMetadata(key, method)?.length ?? 0) > 0 || (Reflect.getMetadata(key, owner)?.length ?? 0) > 0,
  );
}

/**
 * Calls the tool method directly when it has no guards, interceptors or filters, otherwise through
 * Nest's external context so `@UseGuards()`, `@UseInterceptors()` and `@UseFilters()` on the
 * method or class apply. A filter's return value becomes the tool's result; an error no filter
 * handles goes on to the registry's error policy.
 */
export function createToolInvoker(descriptor: ToolDescriptor, contextCreator: ExternalContextCreator): ToolInvoker {
  const method = (descriptor.instance as Record<string, (...args: unknown[]) => unknown>)[descriptor.methodName];
  if (!hasEnhancers(descriptor)) return (...args) => method.apply(descriptor.instance, args);
  return contextCreator.create(
    descriptor.instance,
    method,
    descriptor.methodName,
    undefined,
    undefined,
    undefined,
    undefined,
    { guards: true, interceptors: true, filters: true },
    MCP_CONTEXT_TYPE,
  );
}
