import { defineConfigSection, duration, int } from '@app/common';

export const MCP_TASKS_OPTIONS = Symbol('MCP_TASKS_OPTIONS');
/** The app configuration's section `McpTasksModule` reads. */
export const MCP_TASKS_CONFIG_SECTION = 'tasks';

export interface McpTasksOptions {
  /** Tasks a caller may have working or waiting for input at once; anonymous callers share one count. */
  maxTasksPerCaller: number;
  /** How long a task tool's call may run before it is answered with a task instead of its result. */
  answerWithinMs: number;
  /** How long a task and its result stay readable, from its creation. */
  ttlMs: number;
  /** How long an instance's claim on a running task lasts unless renewed: the time to notice an instance that died. */
  leaseMs: number;
  /** The largest result, as JSON, a task keeps. */
  maxResultBytes: number;
  /** The poll interval suggested to clients. */
  pollIntervalMs: number;
}

/** The tasks extension's keys (`McpTasksModule`). */
export const mcpTasksConfig = defineConfigSection({
  keys: {
    /** Tasks a user may have in progress (working or waiting for input) at once; anonymous callers share one count. */
    MCP_MAX_TASKS_PER_USER: int(100, { min: 1, max: 100_000 }),
    /** A task tool's call that takes longer than this (milliseconds) is answered with a task; a quicker one with its result. */
    MCP_TASK_ANSWER_WITHIN_MS: int(500, { min: 0, max: 60_000 }),
    /**
     * How long a task and its result stay readable, from its creation. Tasks are server-directed
     * (SEP-2663): no client asks for a TTL (the SDK drops the first revision's `task.ttl`).
     */
    MCP_TASK_TTL: duration(3600, { minSeconds: 1, maxSeconds: 30 * 86400 }),
    /** An instance renews its claim on the tasks it runs every third of this; a task whose claim ran out (its instance died) ends `failed`. */
    MCP_TASK_LEASE: duration(30, { minSeconds: 1, maxSeconds: 3600 }),
    /** The largest task result kept, as JSON; a larger one ends the task `failed`, saying so. */
    MCP_TASK_MAX_RESULT_BYTES: int(4 * 1024 * 1024, { min: 1024, max: 256 * 1024 * 1024 }),
  },
  toOptions: (values): McpTasksOptions => ({
    maxTasksPerCaller: values.MCP_MAX_TASKS_PER_USER,
    answerWithinMs: values.MCP_TASK_ANSWER_WITHIN_MS,
    ttlMs: values.MCP_TASK_TTL * 1000,
    leaseMs: values.MCP_TASK_LEASE * 1000,
    maxResultBytes: values.MCP_TASK_MAX_RESULT_BYTES,
    pollIntervalMs: 500,
  }),
});
