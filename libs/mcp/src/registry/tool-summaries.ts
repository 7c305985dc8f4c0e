import type { ApprovalPolicy, JsonSchema } from '../decorators/metadata.types.js';
import type { DisabledToolDescriptor, ToolDescriptor } from '../explorer/descriptors.js';
import { describeOrigin } from '../tool-directories/tool-origin.js';

/** How a tool runs as a task: never (`forbidden`), when the client supports tasks (`optional`), or only as one (`required`). */
export type TaskSupportLevel = 'forbidden' | 'optional' | 'required';

/** One tool as a console shows it: what `tools/list` publishes, and what the server knows besides. */
export interface ToolSummary {
  name: string;
  title: string | null;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | null;
  /** The scopes a caller whose token carries scopes needs for it. */
  scopes: readonly string[];
  taskSupport: TaskSupportLevel;
  /** Who must allow each call before it runs; null for a tool that runs at once. */
  approval: ApprovalPolicy | null;
  /** It takes the signed-in caller (or needs scopes): anonymous calls are refused. */
  actsForUser: boolean;
  /** `packaged`, or the tool-directory file that defined it. */
  origin: string;
  /** False for the tools of a class that turned itself off at start-up: listed, never callable. */
  enabled: boolean;
}

type Described = Pick<ToolDescriptor, 'name' | 'options' | 'inputSchema' | 'scopes' | 'origin' | 'approval'> & { actsForUser: boolean };

function summarize(tool: Described, enabled: boolean): ToolSummary {
  const { options } = tool;
  return {
    name: tool.name,
    title: options.title ?? null,
    description: options.description ?? '',
    inputSchema: tool.inputSchema,
    outputSchema: options.outputSchema ?? null,
    scopes: tool.scopes,
    taskSupport: taskSupportOf(tool),
    approval: tool.approval ?? null,
    actsForUser: tool.actsForUser,
    origin: describeOrigin(tool.origin),
    enabled,
  };
}

/** How a call of the tool may run as a task: as it declares, else `optional` for one that waits for an approver (the wait is a task where the client takes tasks). */
export function taskSupportOf(tool: Pick<ToolDescriptor, 'options' | 'approval'>): TaskSupportLevel {
  return tool.options.task ?? (tool.approval === 'approver' ? 'optional' : 'forbidden');
}

export const summarizeTool = (descriptor: ToolDescriptor): ToolSummary => summarize({ ...descriptor, actsForUser: descriptor.requiresCaller }, true);

export const summarizeDisabledTool = (tool: DisabledToolDescriptor): ToolSummary => summarize(tool, false);
