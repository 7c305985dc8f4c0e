import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { describeError, HOURLY_AFTER_START, InstanceBroadcast, Metrics, PeriodicJob } from '@app/common';
import { callerKey } from '../caller.js';
import { ArgumentValidator } from '../registry/argument-validator.js';
import { InternalToolError } from '../registry/tool-error-policy.js';
import { errorResult } from '../registry/tool-result.js';
import type { McpTaskEntity } from './mcp-task.entity.js';
import { MCP_TASKS_OPTIONS, type McpTasksOptions } from './tasks.config.js';
import { TaskStore, type TaskOutcome } from './task-store.js';
import { TaskRun, type TaskRunHost } from './task-run.js';
import {
  answerProblem,
  AnyResult,
  clientSupportsTasks,
  TaskIdParams,
  tasksExtensionRequired,
  toCreateTaskResult,
  toDetailedTask,
  type CreateTaskResult,
  type TaskError,
} from './task-wire.js';

/** How a tool declared it runs: `optional` (a task when the client supports tasks), `required` (only as a task). */
export type TaskSupport = 'optional' | 'required';

type ToolAnswer = CallToolResult | InputRequiredResult;

export interface TaskToolCall {
  name: string;
  support: TaskSupport;
  /** Added to `MCP_TASK_TTL` for this call's task: the longest it may wait before it runs (for an approver), so that its result is kept as long as any other's. */
  extraTtlMs?: number;
}

/** Runs the tool with the request context given; a failure of the server's own is thrown as an `InternalToolError`. */
export type ToolRunner = (context: ServerContext) => Promise<ToolAnswer>;

const INTERNAL_ERROR = -32603;
/** Broadcast topic: `cancel <id>` and `input <id>`, for the instance running the task. */
const TOPIC = 'mcp-tasks';

/** The error a task ends with when the instance running it stopped. */
const ABANDONED: TaskError = {
  code: INTERNAL_ERROR,
  message: 'The server running this task stopped before it finished; call the tool again',
};

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * The MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the app's database: a task
 * tool's call that outlasts `answerWithinMs`, or asks the client for input, is answered with a task
 * the client polls (`tasks/get`), answers (`tasks/update`) and cancels (`tasks/cancel`) through any
 * instance. The instance running a task keeps a lease on it; one whose lease lapses is failed by
 * whichever instance notices first.
 */
@Injectable()
export class McpTasks implements TaskRunHost, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  /** This process, as the holder of leases. */
  readonly instance = randomUUID();
  private readonly running = new Map<string, TaskRun>();
  private heartbeat?: NodeJS.Timeout;
  private beating?: Promise<void>;
  private readonly purge: PeriodicJob;
  private stopListening?: () => void;
  private stopping = false;
  /** Checks answers to elicitation requests against their `requestedSchema`. */
  private readonly contentChecks = new ArgumentValidator();

  constructor(
    private readonly store: TaskStore,
    @Inject(MCP_TASKS_OPTIONS) private readonly options: McpTasksOptions,
    // The app's (`CommonModule`); without it, other instances learn of a cancellation or an answer at their next heartbeat.
    @Optional() private readonly broadcast?: InstanceBroadcast,
    @Optional() metrics?: Metrics,
  ) {
    metrics?.gauge('mcp_tasks_open', 'MCP tasks this instance is running, waiting for input among them', () => this.running.size);
    this.purge = new PeriodicJob(
      HOURLY_AFTER_START,
      () => this.purgeExpired(),
      (error) => this.logger.warn(`Purging expired tasks failed: ${describeError(error)}`),
    );
  }

  onApplicationBootstrap(): void {
    this.stopListening = this.broadcast?.subscribe(TOPIC, (message) => this.hear(message));
    this.heartbeat = setInterval(() => void this.beat(), Math.max(250, Math.floor(this.options.leaseMs / 3))).unref();
    void this.beat();
    this.purge.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.heartbeat);
    this.stopListening?.();
    await Promise.allSettled([this.purge.stop(), this.beating]);
    if (this.running.size === 0) return;
    for (const run of this.running.values()) run.abort(new Error('The server is shutting down'));
    this.running.clear();
    await this.store
      .failRunningOn(this.instance, { code: INTERNAL_ERROR, message: 'The server shut down while the task was running; call the tool again' })
      .catch((error: unknown) => this.logger.warn(`Could not mark this instance's tasks failed: ${describeError(error)}`));
  }

  /**
   * Calls a task tool. Without the extension in the request's capabilities it runs as any tool
   * (a `required` one is refused with -32021); with it, the call is answered with its result if it
   * ends within `answerWithinMs` without asking for input, and with a task otherwise.
   */
  async call(tool: TaskToolCall, request: ServerContext, runTool: ToolRunner): Promise<ToolAnswer | CreateTaskResult> {
    if (!clientSupportsTasks(request)) {
      if (tool.support === 'required') {
        throw tasksExtensionRequired(
          `Tool "${tool.name}" runs only as a task: declare the io.modelcontextprotocol/tasks extension in the request's client capabilities`,
        );
      }
      return answerOf(await settle(runTool(request)));
    }
    const run = new TaskRun(this, callerKey(request.http?.authInfo), tool.name, this.options.ttlMs + (tool.extraTtlMs ?? 0), request);
    const outcome = settle(runTool(run.context));
    const first = await Promise.race([outcome, run.escalation, delay(this.options.answerWithinMs)]);
    if (first !== undefined && !run.isTask) {
      run.answeredInRequest();
      return answerOf(first);
    }
    let task: McpTaskEntity;
    try {
      task = await run.becomeTask();
    } catch (error) {
      if (!(error instanceof TooManyTasks)) throw error;
      run.abort(error);
      return errorResult(
        `You have ${this.options.maxTasksPerCaller} tasks in progress, the most allowed (MCP_MAX_TASKS_PER_USER): wait for one to end, or cancel one (tasks/cancel), then call "${tool.name}" again`,
      );
    }
    void outcome.then((ended) => this.finish(run, ended));
    return toCreateTaskResult(task, this.options.pollIntervalMs);
  }

  /** Deletes the ended tasks past their TTL (hourly, and on demand); returns how many. */
  async purgeExpired(): Promise<number> {
    const purged = await this.store.purgeExpired();
    if (purged) this.logger.log(`Deleted ${purged} expired task(s)`);
    return purged;
  }

  /** `tasks/get`'s result for the owner's task; undefined when the owner has no such task (the SDK path and the fast lane both serve it). */
  async detailedTask(taskId: string, owner: string): Promise<Record<string, unknown> | undefined> {
    const task = await this.store.find(taskId, owner);
    return task ? toDetailedTask(task, this.options.pollIntervalMs) : undefined;
  }

  /** Adds `tasks/get`, `tasks/update` and `tasks/cancel` to a server. */
  register(server: Server): void {
    server.setRequestHandler('tasks/get', { params: TaskIdParams, result: AnyResult }, async ({ taskId }, ctx) => {
      requireExtension(ctx, 'tasks/get');
      const detailed = await this.detailedTask(taskId, callerKey(ctx.http?.authInfo));
      if (!detailed) throw unknownTask(taskId);
      return detailed;
    });
    server.setRequestHandler('tasks/update', { params: TaskIdParams, result: AnyResult }, async ({ taskId }, ctx) => {
      requireExtension(ctx, 'tasks/update');
      const { inputResponses } = ctx.mcpReq;
      if (!inputResponses) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tasks/update needs inputResponses: the answers, keyed as the task asked');
      const owner = callerKey(ctx.http?.authInfo);
      const pending = await this.store.pendingInput(taskId, owner);
      if (!pending) throw unknownTask(taskId);
      // Answers to requests the task does not wait on (answered already, or never asked) are ignored.
      const answers = Object.fromEntries(Object.entries(inputResponses).filter(([key]) => Object.hasOwn(pending, key)));
      for (const [key, answer] of Object.entries(answers)) {
        const problem = answerProblem(pending[key], answer, (schema, content) => this.contentChecks.checkOnce(schema, content));
        if (problem) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `The answer to input request "${key}" is refused: ${problem}`);
      }
      if (Object.keys(answers).length === 0) return {};
      if (!(await this.store.answer(taskId, owner, answers))) throw unknownTask(taskId);
      this.tell('input', taskId);
      return {};
    });
    server.setRequestHandler('tasks/cancel', { params: TaskIdParams, result: AnyResult }, async ({ taskId }, ctx) => {
      requireExtension(ctx, 'tasks/cancel');
      if (!(await this.cancel(taskId, callerKey(ctx.http?.authInfo)))) throw unknownTask(taskId);
      return {};
    });
  }

  /**
   * Cancels the owner's task and stops its tool wherever it runs (here, or on the instance the
   * broadcast reaches); what `tasks/cancel` and the REST routes do. False when the owner has no
   * such task; true when it was cancelled or had already ended (idempotent).
   */
  async cancel(taskId: string, owner: string): Promise<boolean> {
    if (!(await this.store.cancel(taskId, owner))) return false;
    this.tell('cancel', taskId);
    return true;
  }

  async create(run: TaskRun): Promise<McpTaskEntity> {
    const task = await this.store.create({
      owner: run.owner,
      tool: run.tool,
      statusMessage: run.statusMessage ?? null,
      ttlMs: run.ttlMs,
      instance: this.instance,
      leaseMs: this.options.leaseMs,
      maxActive: this.options.maxTasksPerCaller,
    });
    if (!task) throw new TooManyTasks();
    this.running.set(task.id, run);
    return task;
  }

  requestInput(taskId: string, requests: Record<string, InputRequest>): Promise<boolean> {
    return this.store.requestInput(taskId, this.instance, requests);
  }

  readResponses(taskId: string, keys: readonly string[]): Promise<Record<string, unknown>> {
    return this.store.readResponses(taskId, keys);
  }

  recordProgress(taskId: string, message: string): void {
    this.store.setStatusMessage(taskId, this.instance, message).catch((error: unknown) => {
      this.logger.warn(`Could not record the progress of task ${taskId}: ${describeError(error)}`);
    });
  }

  /** Records how a task's tool ended (unless the task was cancelled, or lost to a lapsed lease, meanwhile). */
  private async finish(run: TaskRun, ended: ToolAnswer | InternalToolError | Error): Promise<void> {
    const taskId = run.taskId!;
    this.running.delete(taskId);
    // At shutdown the tasks still running were failed together (`failRunningOn`).
    if (this.stopping) return;
    try {
      await this.store.settle(taskId, this.instance, this.taskOutcome(run, ended));
    } catch (error) {
      this.logger.error(`Could not record the end of task ${taskId}: ${describeError(error)}`);
    }
  }

  private taskOutcome(run: TaskRun, ended: ToolAnswer | InternalToolError | Error): TaskOutcome {
    if (ended instanceof InternalToolError) return { status: 'failed', error: { code: INTERNAL_ERROR, message: ended.message } };
    if (ended instanceof Error) return { status: 'failed', error: { code: INTERNAL_ERROR, message: `Task ended: ${ended.message}` } };
    if (ended.resultType === 'input_required') {
      return {
        status: 'failed',
        error: {
          code: INTERNAL_ERROR,
          message: `Tool "${run.tool}" answered input_required after it became a task; a task asks for input with its context's elicit() or sample()`,
        },
      };
    }
    const size = Buffer.byteLength(JSON.stringify(ended));
    if (size > this.options.maxResultBytes) {
      return {
        status: 'failed',
        error: {
          code: INTERNAL_ERROR,
          message: `The result is ${size} bytes, more than a task keeps (MCP_TASK_MAX_RESULT_BYTES=${this.options.maxResultBytes})`,
        },
      };
    }
    return { status: 'completed', result: ended as Record<string, unknown> };
  }

  /** Renews this instance's leases, stops what was cancelled elsewhere, and fails the tasks of instances that stopped. */
  private beat(): Promise<void> {
    this.beating ??= this.renewAndSweep()
      .catch((error: unknown) => this.logger.warn(`Task heartbeat failed: ${describeError(error)}`))
      .finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async renewAndSweep(): Promise<void> {
    const ended = await this.store.renewLeases(this.instance, [...this.running.keys()], this.options.leaseMs);
    for (const [taskId, status] of ended) this.stop(taskId, `the task is ${status}`);
    // A task still waiting for an answer when its TTL runs out (a question nobody answers) ends. One
    // that is working runs on until it ends, as `purgeExpired` keeps it: its result is then kept
    // until the next purge.
    const now = Date.now();
    for (const [taskId, run] of this.running) {
      if (run.waitingForInput && run.expiresAt !== undefined && run.expiresAt <= now) {
        // Settled before the tool is stopped: the stopped tool's own ending then finds the task ended and records nothing.
        await this.store.settle(taskId, this.instance, { status: 'failed', error: { code: INTERNAL_ERROR, message: 'The task did not end within its TTL' } });
        this.stop(taskId, 'its TTL ran out');
      }
    }
    // An answer given through another instance is heard through the broadcast, at most once; this catches one it missed.
    await Promise.all([...this.running.values()].filter((run) => run.waitingForInput).map((run) => run.collectAnswers()));
    const abandoned = await this.store.failAbandoned(ABANDONED);
    if (abandoned.length) this.logger.warn(`Failed ${abandoned.length} task(s) whose instance stopped: ${abandoned.join(', ')}`);
  }

  private stop(taskId: string, why: string): void {
    const run = this.running.get(taskId);
    if (!run) return;
    this.running.delete(taskId);
    run.abort(new Error(`Stopped: ${why}`));
  }

  /** Tells the instance running the task (this one, or another through the broadcast). */
  private tell(event: 'cancel' | 'input', taskId: string): void {
    this.hear(`${event} ${taskId}`);
    if (this.broadcast?.shared) this.broadcast.publish(TOPIC, `${event} ${taskId}`);
  }

  private hear(message: string): void {
    const [event, taskId] = message.split(' ');
    if (!taskId || !this.running.has(taskId)) return;
    if (event === 'cancel') this.stop(taskId, 'the task was cancelled');
    if (event === 'input') {
      this.running
        .get(taskId)!
        .collectAnswers()
        .catch((error: unknown) => this.logger.warn(`Could not hand task ${taskId} its answers: ${describeError(error)}`));
    }
  }
}

/** The caller has MCP_MAX_TASKS_PER_USER tasks in progress: the call cannot become another. */
class TooManyTasks extends Error {}

/** The tool's answer, or what it threw: a run never rejects, so that its end can be raced and recorded. */
function settle(running: Promise<ToolAnswer>): Promise<ToolAnswer | InternalToolError | Error> {
  return running.catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
}

/** A call answered in its request: a failure of the server's is an error result there, as for any tool. */
function answerOf(ended: ToolAnswer | InternalToolError | Error): ToolAnswer {
  if (ended instanceof InternalToolError) return ended.result;
  if (ended instanceof Error) throw ended;
  return ended;
}

function requireExtension(ctx: ServerContext, method: string): void {
  if (!clientSupportsTasks(ctx)) {
    throw tasksExtensionRequired(`${method} needs the io.modelcontextprotocol/tasks extension: declare it in the request's client capabilities`);
  }
}

/** A task the caller does not have, whether it never existed, expired, or is someone else's. */
function unknownTask(taskId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
}
