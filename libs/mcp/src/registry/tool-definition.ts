import type { Tool } from '@modelcontextprotocol/server';
import { APPROVAL_META_KEY } from '../approvals/approval-policy.js';
import type { ToolDescriptor } from '../explorer/descriptors.js';
import { ToolDefinitionError } from '../schema/tool-definition.error.js';
import { importErrorMessage } from '../tool-directories/import-tool-files.js';
import type { ArgumentProblems, ArgumentValidator } from './argument-validator.js';

/** The entry published in `tools/list`; a tool's approval policy is in its `_meta`, so that a client can tell its user the call will wait. */
export function toToolDefinition(descriptor: ToolDescriptor): Tool {
  const { options } = descriptor;
  const meta = descriptor.approval ? { ...options.meta, [APPROVAL_META_KEY]: descriptor.approval } : options.meta;
  return Object.freeze({
    name: descriptor.name,
    ...(options.title ? { title: options.title } : {}),
    ...(options.description ? { description: options.description } : {}),
    inputSchema: descriptor.inputSchema as Tool['inputSchema'],
    ...(options.outputSchema ? { outputSchema: options.outputSchema as Tool['outputSchema'] } : {}),
    ...(options.annotations ? { annotations: options.annotations } : {}),
    ...(meta ? { _meta: meta } : {}),
  });
}

/**
 * The tool's compiled argument check. A packaged tool whose schema does not compile stops start-up;
 * a directory tool is skipped (`undefined`) and logged like a file that fails to import.
 */
export function compileOrSkip(validator: ArgumentValidator, descriptor: ToolDescriptor, log: { error(message: string): void }): ArgumentProblems | undefined {
  try {
    return validator.compileProblems(descriptor.inputSchema);
  } catch (error) {
    const problem = new ToolDefinitionError(
      `${descriptor.className}.${descriptor.methodName}`,
      `its input schema is not valid JSON Schema (${(error as Error).message})`,
      'correct the inputSchema option',
    );
    if (descriptor.origin.kind === 'packaged') throw problem;
    log.error(importErrorMessage(descriptor.origin.file, problem.message));
    return undefined;
  }
}
