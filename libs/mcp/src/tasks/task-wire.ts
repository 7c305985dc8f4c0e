import {
  CLIENT_CAPABILITIES_META_KEY,
  fromJsonSchema,
  MissingRequiredClientCapabilityError,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { McpTaskEntity } from './mcp-task.entity.js';

/** The extension's identifier, under `capabilities.extensions` (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A JSON-RPC error as a failed task carries it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** What `tools/call` answers when it made a task: the task itself, flat (no result, no input requests). */
export interface CreateTaskResult {
  [key: string]: unknown;
  resultType: 'task';
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
}

export function isCreateTaskResult(result: object): result is CreateTaskResult {
  return (result as { resultType?: unknown }).resultType === 'task';
}

/**
 * Whether the request declares the tasks extension. Negotiation is per request: the 2026-07-28
 * envelope carries the client's capabilities; 2025 requests carry none, and get no tasks.
 */
export function clientSupportsTasks(ctx: ServerContext): boolean {
  const capabilities = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof object] as ClientCapabilities | undefined;
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

/** -32021, naming the extension, as SEP-2575 asks of a request the server cannot serve without it. */
export function tasksExtensionRequired(why: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }, why);
}

/** The task's fields every answer about it carries. */
function taskFields(task: McpTaskEntity, pollIntervalMs: number) {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.updatedAt.toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs,
  };
}

export function toCreateTaskResult(task: McpTaskEntity, pollIntervalMs: number): CreateTaskResult {
  return { resultType: 'task', ...taskFields(task, pollIntervalMs) };
}

/** `tasks/get`: the task, with what its status calls for inlined (the pending input requests, the result, or the error). */
export function toDetailedTask(task: McpTaskEntity, pollIntervalMs: number): Record<string, unknown> {
  return {
    ...taskFields(task, pollIntervalMs),
    ...(task.status === 'input_required' && task.inputRequests ? { inputRequests: task.inputRequests } : {}),
    ...(task.status === 'completed' && task.result ? { result: task.result } : {}),
    ...(task.status === 'failed' && task.error ? { error: task.error } : {}),
  };
}

const taskIdParams = {
  type: 'object',
  properties: { taskId: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['taskId'],
} as const;

/** Parameters of `tasks/get`, `tasks/cancel` and `tasks/update` (whose `inputResponses` the SDK lifts into `ctx.mcpReq`, as on a retried call). */
export const TaskIdParams = fromJsonSchema<{ taskId: string }>(taskIdParams);

const ELICIT_ACTIONS = ['accept', 'decline', 'cancel'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What is wrong with a client's answer to one of a task's input requests, or undefined: an
 * elicitation answer needs a known `action`, and accepted content that its `requestedSchema`
 * takes (`checkContent` applies it); a sampling answer needs a `role` and `content`.
 */
export function answerProblem(
  request: unknown,
  answer: unknown,
  checkContent: (schema: Record<string, unknown>, content: Record<string, unknown>) => string | undefined,
): string | undefined {
  if (!isObject(answer)) return 'it is not an object';
  const { method, params } = isObject(request) ? request : {};
  if (method === 'elicitation/create') {
    if (!ELICIT_ACTIONS.includes(answer['action'] as string)) return `"action" must be one of ${ELICIT_ACTIONS.join(', ')}`;
    if (answer['action'] !== 'accept' || answer['content'] === undefined) return undefined;
    if (!isObject(answer['content'])) return '"content" must be an object';
    const schema = isObject(params) ? params['requestedSchema'] : undefined;
    return isObject(schema) ? checkContent(schema, answer['content']) : undefined;
  }
  if (method === 'sampling/createMessage' && (typeof answer['role'] !== 'string' || answer['content'] === undefined)) {
    return 'a sampling answer needs "role" and "content"';
  }
  return undefined;
}

/** Results are shaped by the handlers above; the SDK adds `resultType` and `_meta`. */
export const AnyResult = fromJsonSchema<Record<string, unknown>>({ type: 'object' });
