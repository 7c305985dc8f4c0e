import { randomBytes } from 'node:crypto';
import {
  inputRequired,
  type CreateMessageRequest,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type InputRequest,
  type ServerContext,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import type { McpTaskEntity } from './mcp-task.entity.js';

/** What a run needs of the tasks service: its table, through the calls that concern one task. */
export interface TaskRunHost {
  /** Creates the task's row; the run is then the instance's to renew and settle. */
  create(run: TaskRun): Promise<McpTaskEntity>;
  requestInput(taskId: string, requests: Record<string, InputRequest>): Promise<boolean>;
  readResponses(taskId: string, keys: readonly string[]): Promise<Record<string, unknown>>;
  recordProgress(taskId: string, message: string): void;
}

/** Marks the request context of a call that may become a task (`McpToolContext.mayBecomeTask`), and holds its run. */
export const MAY_BECOME_TASK = Symbol('mcp task candidate');

/** The run of a call that may become a task, from its request context; undefined for any other call. */
export function taskRunOf(context: object): TaskRun | undefined {
  return (context as { [MAY_BECOME_TASK]?: TaskRun })[MAY_BECOME_TASK];
}

/**
 * Stands for a progress token where the client sent none: a task's progress is kept on the task
 * (its `statusMessage`), whether or not the request asked for notifications.
 */
const TASK_PROGRESS_TOKEN = 'io.modelcontextprotocol/tasks#progress';

/** A task's progress is written at most this often (the latest message wins): a tool may report it in a tight loop. */
const PROGRESS_WRITE_INTERVAL_MS = 1000;

/**
 * One call of a task tool, from the moment it starts: first within its request (answered with its
 * result if it ends soon enough), then, once it becomes a task, on its own. The tool sees it
 * through the request context it is given (`context`): cancellation is the task's, progress goes to
 * the task, and asking the client for input (`elicit`, `sample`) makes it a task at once and parks
 * it `input_required` until `tasks/update` brings the answer.
 */
export class TaskRun {
  private readonly abortController = new AbortController();
  private readonly stopFollowingRequest: () => void;
  private created?: Promise<McpTaskEntity>;
  private escalated!: () => void;
  /** Settles when the run must become a task before its time is up (it asked for input). */
  readonly escalation = new Promise<void>((resolve) => (this.escalated = resolve));
  /** Input requests the tool waits on, by key. */
  private readonly waiting = new Map<string, { resolve(answer: unknown): void; reject(reason: unknown): void }>();
  private latestProgress?: string;
  private progressWrite?: NodeJS.Timeout;
  private lastProgressWriteAt = 0;
  taskId?: string;
  /** The status the task is created with (`becomeTask`). */
  statusMessage?: string;
  /** When the task's TTL runs out (epoch ms), once it is a task. */
  expiresAt?: number;
  readonly context: ServerContext;

  constructor(
    private readonly host: TaskRunHost,
    readonly owner: string,
    readonly tool: string,
    readonly ttlMs: number,
    private readonly request: ServerContext,
  ) {
    // Until it is a task, the call is the request's: a client that cancels or goes away ends it.
    const followRequest = () => this.abort(request.mcpReq.signal.reason);
    request.mcpReq.signal.addEventListener('abort', followRequest, { once: true });
    this.stopFollowingRequest = () => request.mcpReq.signal.removeEventListener('abort', followRequest);
    const clientToken = request.mcpReq._meta?.progressToken;
    this.context = {
      ...request,
      [MAY_BECOME_TASK]: this,
      mcpReq: {
        ...request.mcpReq,
        signal: this.abortController.signal,
        _meta: { ...request.mcpReq._meta, progressToken: clientToken ?? TASK_PROGRESS_TOKEN },
        notify: (notification: ServerNotification) => this.notify(notification, clientToken !== undefined),
        // A task's request is over: there is no stream left to log to.
        log: (...args: Parameters<ServerContext['mcpReq']['log']>) => (this.taskId ? Promise.resolve() : request.mcpReq.log(...args)),
        elicitInput: (params: ElicitRequestFormParams | ElicitRequestURLParams) => this.ask(inputRequired.elicit(params as never)),
        requestSampling: (params: CreateMessageRequest['params']) => this.ask(inputRequired.createMessage(params)),
      },
    } as ServerContext;
  }

  get isTask(): boolean {
    return this.created !== undefined;
  }

  /**
   * Makes the call a task (once): creates its row, with `statusMessage` as its status when given,
   * and from then on the request's end no longer ends it.
   */
  becomeTask(statusMessage?: string): Promise<McpTaskEntity> {
    if (!this.created) {
      this.statusMessage = statusMessage;
      this.stopFollowingRequest();
      this.created = this.host.create(this).then((task) => {
        this.taskId = task.id;
        this.expiresAt = task.expiresAt.getTime();
        return task;
      });
      this.escalated();
    }
    return this.created;
  }

  /** Shows `message` as the task's status (`statusMessage`), as the tool's progress does. */
  reportStatus(message: string): void {
    if (this.taskId) this.host.recordProgress(this.taskId, message);
  }

  /** The call ended within its request: nothing of it outlives the request. */
  answeredInRequest(): void {
    this.stopFollowingRequest();
  }

  abort(reason?: unknown): void {
    this.abortController.abort(reason);
    for (const waiter of this.waiting.values()) waiter.reject(this.abortController.signal.reason);
    this.waiting.clear();
  }

  get waitingForInput(): boolean {
    return this.waiting.size > 0;
  }

  /** Hands the tool the answers that have arrived for what it waits on. */
  async collectAnswers(): Promise<void> {
    if (!this.taskId || this.waiting.size === 0) return;
    const answers = await this.host.readResponses(this.taskId, [...this.waiting.keys()]);
    for (const [key, answer] of Object.entries(answers)) {
      this.waiting.get(key)?.resolve(answer);
      this.waiting.delete(key);
    }
  }

  private async ask(request: InputRequest): Promise<never> {
    const key = `input-${randomBytes(9).toString('base64url')}`;
    const task = await this.becomeTask();
    const answered = new Promise<never>((resolve, reject) => this.waiting.set(key, { resolve: resolve as (answer: unknown) => void, reject }));
    // Cancelled while the request is being written, it rejects before the tool awaits it: not an unhandled rejection.
    answered.catch(() => undefined);
    if (!(await this.host.requestInput(task.id, { [key]: request }))) {
      this.waiting.delete(key);
      throw new Error(`Task ${task.id} no longer runs here`);
    }
    return answered;
  }

  private async notify(notification: ServerNotification, clientAsked: boolean): Promise<void> {
    if (!this.taskId) {
      if (notification.method !== 'notifications/progress' || clientAsked) await this.request.mcpReq.notify(notification);
      return;
    }
    if (notification.method !== 'notifications/progress') return;
    const { progress, total, message } = notification.params;
    this.latestProgress = message ?? (total === undefined ? `${progress}` : `${progress}/${total}`);
    if (this.progressWrite) return;
    const wait = Math.max(0, this.lastProgressWriteAt + PROGRESS_WRITE_INTERVAL_MS - Date.now());
    this.progressWrite = setTimeout(() => {
      this.progressWrite = undefined;
      this.lastProgressWriteAt = Date.now();
      this.host.recordProgress(this.taskId!, this.latestProgress!);
    }, wait).unref();
  }
}
