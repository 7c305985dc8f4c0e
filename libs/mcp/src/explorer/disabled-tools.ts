import { MCP_TOOL_CLASS_APPROVAL_METADATA, MCP_TOOL_CLASS_SCOPES_METADATA, MCP_TOOL_METADATA } from '../decorators/constants.js';
import type { ApprovalPolicy, ToolOptions } from '../decorators/metadata.types.js';
import type { ToolOrigin } from '../tool-directories/tool-origin.js';
import type { DisabledToolDescriptor, ToolDescriptor } from './descriptors.js';
import { describeProvider, ownPublicMethodNames, toSnakeCase } from './describe-provider.js';

/**
 * The tools of a class that turned itself off at start-up (`static enabled()` answered false), so
 * that a console can show them greyed out; they are never registered, so never callable. Described
 * like any tool where possible (the instance exists: Nest built it); a class whose description
 * fails (it may be disabled because it is incomplete) is read from its decorators alone.
 */
export function describeDisabledTools(instance: object, className: string, origin: ToolOrigin): DisabledToolDescriptor[] {
  try {
    return describeProvider(instance, className, origin).tools.map(fromDescriptor);
  } catch {
    return fromDecorators(instance, className, origin);
  }
}

function fromDescriptor(tool: ToolDescriptor): DisabledToolDescriptor {
  return {
    name: tool.name,
    className: tool.className,
    options: tool.options,
    inputSchema: tool.inputSchema,
    scopes: tool.scopes,
    ...(tool.approval ? { approval: tool.approval } : {}),
    actsForUser: tool.requiresCaller,
    origin: tool.origin,
  };
}

function fromDecorators(instance: object, className: string, origin: ToolOrigin): DisabledToolDescriptor[] {
  const prototype = Object.getPrototypeOf(instance);
  const classScopes: readonly string[] = Reflect.getMetadata(MCP_TOOL_CLASS_SCOPES_METADATA, instance.constructor) ?? [];
  const classApproval: ApprovalPolicy | undefined = Reflect.getMetadata(MCP_TOOL_CLASS_APPROVAL_METADATA, instance.constructor);
  return ownPublicMethodNames(prototype).flatMap((methodName) => {
    const options: ToolOptions | undefined = Reflect.getMetadata(MCP_TOOL_METADATA, prototype[methodName]);
    if (!options) return [];
    const scopes = [...new Set([...classScopes, ...(options.scopes ?? [])])].sort();
    const approval = options.approval ?? classApproval;
    return [
      {
        name: options.name ?? toSnakeCase(methodName),
        className,
        options,
        // Its schema could not be built; an object of any arguments says no more than is known.
        inputSchema: options.inputSchema ?? { type: 'object' },
        scopes,
        ...(approval ? { approval } : {}),
        actsForUser: scopes.length > 0 || approval !== undefined,
        origin,
      },
    ];
  });
}
