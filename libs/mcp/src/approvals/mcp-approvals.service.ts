import { hkdfSync, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  ConflictError,
  describeError,
  ForbiddenError,
  InstanceBroadcast,
  Metrics,
  missingScopes,
  NotFoundError,
  PeriodicJob,
  Signer,
  type Page,
  type UserInfo,
} from '@app/common';
import { callerFromAuthInfo } from '../caller.js';
import type { ToolDescriptor } from '../explorer/descriptors.js';
import { errorResult } from '../registry/tool-result.js';
import { taskSupportOf } from '../registry/tool-summaries.js';
import { McpTasks, type TaskSupport } from '../tasks/mcp-tasks.service.js';
import { taskRunOf } from '../tasks/task-run.js';
import { clientSupportsTasks, tasksExtensionRequired, type CreateTaskResult } from '../tasks/task-wire.js';
import { MCP_AUDIT_TRAIL, MCP_CALLER_STANDING, type ApprovalAuditTrail, type CallerStanding } from './approval-ports.js';
import { ApprovalStore, type ApprovalFilter, type EndedRequest } from './approval-store.js';
import { ApprovalWebhook } from './approval-webhook.js';
import type { ApprovalStatus, CallerSnapshot, McpApprovalEntity, RunOutcome } from './approval.entity.js';
import { MCP_APPROVALS_OPTIONS, type McpApprovalsOptions } from './approvals.config.js';
import { argumentsDigest, ArgumentsSealer } from './arguments-sealer.js';

type ToolAnswer = CallToolResult | InputRequiredResult;

/** One call of a tool with an approval policy, as `/mcp` received it. */
export interface ApprovalCall {
  tool: ToolDescriptor;
  /** The arguments, validated, with their defaults. */
  args: Record<string, unknown>;
  /** True when the call comes in a 2025 session whose client declared elicitation. */
  sessionElicits: boolean;
  /** Runs the tool, allowed; `inTask`: a failure of the server's is thrown (for the task to record) rather than answered. */
  run(context: ServerContext, inTask: boolean): Promise<ToolAnswer>;
}

/** An approval request as approvers read it: the arguments only while it waits. */
export interface ApprovalView {
  id: string;
  tool: string;
  status: ApprovalStatus;
  requestedBy: { userId: string; email: string | null; name: string | null };
  requestedAt: Date;
  expiresAt: Date;
  /** The arguments, while it waits; null once decided (or when they cannot be opened: sealed under another key). */
  arguments: Record<string, unknown> | null;
  argumentsDigest: string;
  /** Whether the caller waits in a task (else they call again once it is approved). */
  inTask: boolean;
  decidedAt: Date | null;
  decidedBy: { userId: string; email: string | null } | null;
  reason: string | null;
  ranAt: Date | null;
  outcome: RunOutcome | null;
  outcomeMessage: string | null;
}

/** How a request ended, as the call waiting on it learns. */
interface Decision {
  status: ApprovalStatus;
  reason: string | null;
  decidedByEmail: string | null;
}

/** Broadcast topic: `decided <id>`, for the instance whose call waits on the request. */
const TOPIC = 'mcp-approvals';
const EXPIRED = 'no approver decided it in time';
const ORPHANED = 'the call waiting for it ended';
const ORPHANED_RUN = 'its task ended before it could run';
/** The most of the arguments a confirmation form shows (a client shows the message to its user). */
const MAX_SHOWN_ARGUMENTS_CHARS = 2000;
/** The most of a tool error's message a request keeps. */
const MAX_OUTCOME_CHARS = 1000;
const WEBHOOK_BATCH = 10;

/**
 * Calls that wait for a person: the caller's own confirmation (`caller`), or an approver's
 * decision (`approver`), kept as rows of `mcp_approvals` that any instance decides; the instance
 * whose call waits learns of the decision through the broadcast at once, or at its next sweep.
 */
@Injectable()
export class McpApprovals implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpApprovals');
  /** The calls of this instance waiting for a decision, by request id. */
  private readonly waiting = new Map<string, (decision: Decision) => void>();
  private readonly sealer: ArgumentsSealer;
  private readonly sweep: PeriodicJob;
  private stopListening?: () => void;

  constructor(
    private readonly store: ApprovalStore,
    private readonly webhook: ApprovalWebhook,
    @Inject(MCP_APPROVALS_OPTIONS) private readonly options: McpApprovalsOptions,
    @Inject(MCP_AUDIT_TRAIL) private readonly audit: ApprovalAuditTrail,
    @Inject(MCP_CALLER_STANDING) private readonly standing: CallerStanding,
    signer: Signer,
    // `McpTasksModule`: without it, a call that waits for an approver is answered with the request's id.
    @Optional() private readonly tasks?: McpTasks,
    @Optional() private readonly broadcast?: InstanceBroadcast,
    @Optional() private readonly metrics?: Metrics,
  ) {
    const key = options.argumentsKey
      ? Buffer.from(hkdfSync('sha256', options.argumentsKey, 'mirobody', 'approval-arguments', 32))
      : signer.keyFor('approval-arguments');
    this.sealer = new ArgumentsSealer(key);
    metrics?.gauge('mcp_approvals_pending', 'Approval requests waiting for a decision, across the deployment', () => this.store.pendingCount());
    this.sweep = new PeriodicJob(
      { firstDelayMs: options.sweepIntervalMs, intervalMs: options.sweepIntervalMs },
      () => this.sweepOnce(),
      (error) => this.logger.warn(`The approvals sweep failed: ${describeError(error)}`),
    );
  }

  onApplicationBootstrap(): void {
    this.stopListening = this.broadcast?.subscribe(TOPIC, (message) => void this.hear(message));
    this.sweep.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopListening?.();
    await this.sweep.stop();
  }

  /** Calls a tool with an approval policy, asking for the approval the policy names first. */
  async call(call: ApprovalCall, ctx: ServerContext): Promise<ToolAnswer | CreateTaskResult> {
    const caller = callerFromAuthInfo(ctx.http?.authInfo)!;
    const { tool } = call;
    const tasks = this.tasks && clientSupportsTasks(ctx) ? this.tasks : undefined;
    if (tool.approval === 'caller') {
      const support = tool.options.task;
      if (tasks && support) return tasks.call({ name: tool.name, support }, ctx, (context) => this.confirmInTask(call, caller, context));
      return this.confirmInRequest(call, caller, ctx);
    }
    if (tasks) {
      const support = taskSupportOf(tool) as TaskSupport;
      return tasks.call({ name: tool.name, support, extraTtlMs: this.options.timeoutMs }, ctx, (context) => this.waitForApprover(call, caller, context));
    }
    if (tool.options.task === 'required') {
      throw tasksExtensionRequired(
        `Tool "${tool.name}" runs only as a task: declare the io.modelcontextprotocol/tasks extension in the request's client capabilities`,
      );
    }
    return this.approvedOrRequested(call, caller, ctx);
  }

  // The caller's confirmation.

  /** On 2026-07-28 an input request (the client calls again with the answer), in a 2025 session an elicitation; a client that can do neither is told why the tool did not run. */
  private async confirmInRequest(call: ApprovalCall, caller: UserInfo, ctx: ServerContext): Promise<ToolAnswer> {
    if (ctx.mcpReq.envelope) {
      const capabilities = ctx.mcpReq.envelope[CLIENT_CAPABILITIES_META_KEY as keyof object] as ClientCapabilities | undefined;
      if (!capabilities?.elicitation) return errorResult(cannotConfirm(call.tool.name));
      // The key names the arguments: an answer given for other arguments is no answer for these.
      const key = `confirm-${argumentsDigest(call.args).slice('sha256:'.length, 'sha256:'.length + 16)}`;
      const answer = ctx.mcpReq.inputResponses?.[key];
      if (answer === undefined) return inputRequired({ inputRequests: { [key]: inputRequired.elicit(this.confirmation(call)) } });
      const confirmed = acceptedContent<{ confirm?: unknown }>(ctx.mcpReq.inputResponses, key)?.confirm === true;
      return this.afterConfirmation(call, caller, confirmed, ctx, false);
    }
    if (!call.sessionElicits) return errorResult(cannotConfirm(call.tool.name));
    const answer = await ctx.mcpReq.elicitInput(this.confirmation(call), { signal: ctx.mcpReq.signal, relatedRequestId: ctx.mcpReq.id });
    return this.afterConfirmation(call, caller, answer.action === 'accept' && answer.content?.['confirm'] === true, ctx, false);
  }

  /** In a task, the question parks it `input_required` until the client answers with `tasks/update`. */
  private async confirmInTask(call: ApprovalCall, caller: UserInfo, context: ServerContext): Promise<ToolAnswer> {
    const answer = await context.mcpReq.elicitInput(this.confirmation(call));
    return this.afterConfirmation(call, caller, answer.action === 'accept' && answer.content?.['confirm'] === true, context, true);
  }

  private confirmation({ tool, args }: ApprovalCall): ElicitRequestFormParams {
    const shown = JSON.stringify(args, null, 2);
    const argumentsText = shown.length > MAX_SHOWN_ARGUMENTS_CHARS ? `${shown.slice(0, MAX_SHOWN_ARGUMENTS_CHARS)}…` : shown;
    return {
      mode: 'form',
      message: `Allow "${tool.name}" to run with these arguments?\n${argumentsText}`,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: `Run ${tool.name}`, description: 'Allows this one call, with exactly these arguments' } },
        required: ['confirm'],
      },
    };
  }

  private async afterConfirmation(call: ApprovalCall, caller: UserInfo, confirmed: boolean, context: ServerContext, inTask: boolean): Promise<ToolAnswer> {
    const detail = { tool: call.tool.name, policy: 'caller', argumentsDigest: argumentsDigest(call.args) };
    await this.audit.record(caller, confirmed ? 'approval.confirm' : 'approval.decline', caller.userId, detail);
    if (!confirmed) return errorResult(`You did not confirm the call of "${call.tool.name}": it did not run`);
    return call.run(context, inTask);
  }

  // An approver's decision.

  /** In a task: the task waits (its status says for what) until the request is decided, then runs as the caller, or ends with the reason. */
  private async waitForApprover(call: ApprovalCall, caller: UserInfo, context: ServerContext): Promise<ToolAnswer> {
    const run = taskRunOf(context)!;
    const id = randomUUID();
    const task = await run.becomeTask(`Waiting for an approver: approval request ${id}`);
    const request = await this.open(id, call, caller, task.id);
    let decision: Decision;
    try {
      decision = await this.decisionOn(id, context.mcpReq.signal);
    } catch (error) {
      // The task was cancelled (or its instance is stopping): the request is withdrawn, unless decided meanwhile.
      const ended = await this.store.withdraw(id, ORPHANED).catch(() => null);
      if (ended) await this.recordEnd(ended, caller);
      throw error;
    }
    if (decision.status !== 'approved') return errorResult(notApproved(call.tool.name, request.id, decision));
    run.reportStatus(`Approved${decision.decidedByEmail ? ` by ${decision.decidedByEmail}` : ''}: running`);
    return this.runApproved(id, call, caller, context, true);
  }

  /** Without tasks: a call approved earlier with these arguments runs now (once); otherwise the caller is told the request's id, and where it is decided. */
  private async approvedOrRequested(call: ApprovalCall, caller: UserInfo, ctx: ServerContext): Promise<ToolAnswer> {
    const digest = argumentsDigest(call.args);
    const approved = await this.store.findOpen(caller.userId, call.tool.name, digest, 'approved');
    if (approved) return this.runApproved(approved.id, call, caller, ctx, false);
    const request = (await this.store.findOpen(caller.userId, call.tool.name, digest, 'pending')) ?? (await this.open(randomUUID(), call, caller, null));
    const base = this.options.publicBaseUrl ?? '';
    return errorResult(
      `Tool "${call.tool.name}" waits for an approver: approval request ${request.id} is pending. An approver decides it in the console ` +
        `(${base}/console/approvals) or with POST ${base}/admin/approvals/${request.id}/approve. Once it is approved, call "${call.tool.name}" ` +
        `again with the same arguments before ${request.expiresAt.toISOString()}: it then runs, once.`,
    );
  }

  /** Runs an approved call once, as the caller stands now: their account, credential and scopes are read again first. */
  private async runApproved(id: string, call: ApprovalCall, caller: UserInfo, context: ServerContext, inTask: boolean): Promise<ToolAnswer> {
    if (!(await this.store.claimRun(id))) return errorResult(`Approval request ${id} was used already: call "${call.tool.name}" again to ask anew`);
    const standing = await this.standing.recheck(caller);
    const missing = 'caller' in standing ? missingScopes(standing.caller, call.tool.scopes) : [];
    const refused =
      'refused' in standing ? standing.refused : missing.length ? `your credential no longer grants the scopes it needs (${missing.join(', ')})` : undefined;
    const detail = { requestId: id, tool: call.tool.name };
    if (refused) {
      await this.store.recordOutcome(id, 'refused', refused);
      await this.audit.record(caller, 'approval.run', caller.userId, { ...detail, outcome: 'refused', why: refused });
      return errorResult(`The call of "${call.tool.name}" was approved (request ${id}), but it may no longer run: ${refused}`);
    }
    let answer: ToolAnswer;
    try {
      answer = await call.run(context, inTask);
    } catch (error) {
      await this.store.recordOutcome(id, 'internal_error', null);
      await this.audit.record(caller, 'approval.run', caller.userId, { ...detail, outcome: 'internal_error' });
      throw error;
    }
    const failed = 'isError' in answer && answer.isError === true;
    const message = failed ? ((answer as CallToolResult).content.find((part) => part.type === 'text')?.text ?? null) : null;
    await this.store.recordOutcome(id, failed ? 'tool_error' : 'ok', message && message.slice(0, MAX_OUTCOME_CHARS));
    await this.audit.record(caller, 'approval.run', caller.userId, { ...detail, outcome: failed ? 'tool_error' : 'ok' });
    return answer;
  }

  /** Writes the request (the arguments sealed), on the audit trail; the webhook announces it. */
  private async open(id: string, call: ApprovalCall, caller: UserInfo, taskId: string | null): Promise<McpApprovalEntity> {
    const { userId: _userId, sessionId: _sessionId, ...snapshot } = caller;
    const digest = argumentsDigest(call.args);
    const request = await this.store.create({
      id,
      tool: call.tool.name,
      userId: caller.userId,
      caller: snapshot satisfies CallerSnapshot,
      sealedArguments: this.sealer.seal(id, call.args),
      argumentsDigest: digest,
      taskId,
      timeoutMs: this.options.timeoutMs,
      webhook: this.webhook.configured,
    });
    await this.audit.record(caller, 'approval.request', caller.userId, {
      requestId: id,
      tool: call.tool.name,
      argumentsDigest: digest,
      inTask: taskId !== null,
    });
    if (this.webhook.configured) void this.deliverWebhooks().catch((error: unknown) => this.logger.warn(`Approvals webhook: ${describeError(error)}`));
    return request;
  }

  /** Settles with the request's decision, however it reaches this instance; rejects when `signal` aborts first. */
  private decisionOn(id: string, signal: AbortSignal): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      const aborted = () => {
        this.waiting.delete(id);
        reject(signal.reason);
      };
      if (signal.aborted) return aborted();
      signal.addEventListener('abort', aborted, { once: true });
      this.waiting.set(id, (decision) => {
        signal.removeEventListener('abort', aborted);
        this.waiting.delete(id);
        resolve(decision);
      });
    });
  }

  // The approvers' side (REST, the console).

  /** Whether `user` may read and decide approval requests: an admin, or a holder of `APPROVALS_APPROVER_ROLE`. */
  mayDecide(user: UserInfo): boolean {
    const roles = user.roles ?? [];
    // `admin` is `@app/auth`'s ADMIN_ROLE, which this lib (below auth) cannot import.
    return roles.includes('admin') || (this.options.approverRole !== undefined && roles.includes(this.options.approverRole));
  }

  /** The requests, newest first, for an approver. */
  async list(approver: UserInfo, filter: ApprovalFilter, limit: number, cursor?: string): Promise<Page<ApprovalView>> {
    this.requireApprover(approver);
    const page = await this.store.list(filter, limit, cursor);
    return { items: page.items.map((request) => this.view(request)), nextCursor: page.nextCursor };
  }

  async find(approver: UserInfo, id: string): Promise<ApprovalView> {
    this.requireApprover(approver);
    const request = await this.store.find(id);
    if (!request) throw new NotFoundError(`No approval request with id ${id}`);
    return this.view(request);
  }

  /**
   * Approves or declines a pending request, for someone other than its caller; on the audit trail.
   * The call waiting for it learns at once (on this instance, or through the broadcast), or at its
   * instance's next sweep.
   */
  async decide(approver: UserInfo, id: string, verdict: 'approved' | 'declined', reason: string | null): Promise<ApprovalView> {
    this.requireApprover(approver);
    const request = await this.store.find(id);
    if (!request) throw new NotFoundError(`No approval request with id ${id}`);
    if (request.userId === approver.userId) throw new ForbiddenError('You cannot decide your own approval request: another approver must');
    const ended = await this.store.decide(id, verdict, approver, reason);
    if (!ended) {
      const now = await this.store.find(id);
      const status = now?.status === 'pending' ? 'expired' : (now?.status ?? 'gone');
      throw new ConflictError(`Approval request ${id} is no longer pending: it is ${status}`);
    }
    await this.audit.record(approver, verdict === 'approved' ? 'approval.approve' : 'approval.decline', ended.userId, {
      requestId: id,
      tool: ended.tool,
      argumentsDigest: request.argumentsDigest,
      reason,
    });
    this.metrics?.approvalDecided(verdict, (ended.decidedAt.getTime() - ended.requestedAt.getTime()) / 1000);
    this.tell(id);
    return this.view((await this.store.find(id)) ?? request);
  }

  private requireApprover(user: UserInfo): void {
    if (this.mayDecide(user)) return;
    const role = this.options.approverRole;
    throw new ForbiddenError(`Only admins${role ? ` and holders of the role "${role}"` : ''} decide approval requests`);
  }

  private view(request: McpApprovalEntity): ApprovalView {
    return {
      id: request.id,
      tool: request.tool,
      status: request.status,
      requestedBy: { userId: request.userId, email: request.caller.email ?? null, name: request.caller.name ?? null },
      requestedAt: request.requestedAt,
      expiresAt: request.expiresAt,
      arguments: request.sealedArguments ? (this.sealer.open(request.id, request.sealedArguments) ?? null) : null,
      argumentsDigest: request.argumentsDigest,
      inTask: request.taskId !== null,
      decidedAt: request.decidedAt,
      decidedBy: request.decidedBy ? { userId: request.decidedBy, email: request.decidedByEmail } : null,
      reason: request.reason,
      ranAt: request.ranAt,
      outcome: request.outcome,
      outcomeMessage: request.outcomeMessage,
    };
  }

  // Across instances.

  /** Tells the call waiting on the request (here, or on the instance the broadcast reaches). */
  private tell(id: string): void {
    void this.hear(`decided ${id}`);
    if (this.broadcast?.shared) this.broadcast.publish(TOPIC, `decided ${id}`);
  }

  private async hear(message: string): Promise<void> {
    const [event, id] = message.split(' ');
    if (event !== 'decided' || !id || !this.waiting.has(id)) return;
    try {
      const { settled, gone } = await this.store.settledAmong([id]);
      this.settle(settled, gone);
    } catch (error) {
      this.logger.warn(`Could not read the decision on approval request ${id}: ${describeError(error)}`);
    }
  }

  private settle(settled: readonly McpApprovalEntity[], gone: readonly string[]): void {
    for (const request of settled) this.waiting.get(request.id)?.({ status: request.status, reason: request.reason, decidedByEmail: request.decidedByEmail });
    for (const id of gone) this.waiting.get(id)?.({ status: 'cancelled', reason: 'the request was deleted', decidedByEmail: null });
  }

  /** Ends the requests whose time is up, hands the waiting calls the decisions they missed, and sends the webhooks due. */
  private async sweepOnce(): Promise<void> {
    for (const ended of await this.store.endOverdue(EXPIRED, ORPHANED)) await this.recordEnd(ended, { userId: ended.userId });
    const refused = await this.store.refuseOrphanedRuns(ORPHANED_RUN);
    if (refused.length)
      this.logger.warn(`${refused.length} approved call(s) could not run: their task ended first (${refused.map((row) => row.id).join(', ')})`);
    if (this.waiting.size) {
      const { settled, gone } = await this.store.settledAmong([...this.waiting.keys()]);
      this.settle(settled, gone);
    }
    if (this.webhook.configured) await this.deliverWebhooks();
  }

  /** A request the server ended (expired, withdrawn): on the audit trail, in the metrics, and told to the waiting call. */
  private async recordEnd(ended: EndedRequest, caller: UserInfo): Promise<void> {
    this.metrics?.approvalDecided(ended.status, (ended.decidedAt.getTime() - ended.requestedAt.getTime()) / 1000);
    await this.audit
      .record(caller, `approval.${ended.status === 'expired' ? 'expire' : 'withdraw'}`, ended.userId, {
        requestId: ended.id,
        tool: ended.tool,
        reason: ended.reason,
      })
      .catch((error: unknown) => this.logger.warn(`Could not record the end of approval request ${ended.id}: ${describeError(error)}`));
    this.tell(ended.id);
  }

  private async deliverWebhooks(): Promise<void> {
    for (const request of await this.store.claimDueWebhooks(WEBHOOK_BATCH)) {
      // A request decided before its announcement went out needs none.
      const outcome = request.status === 'pending' ? await this.webhook.deliver(request) : 'refused';
      await this.store.scheduleWebhook(request.id, outcome === 'retry' ? this.webhook.retryDelayMs(request.webhookAttempts) : null);
    }
  }
}

/** What a client that can answer neither an elicitation nor an input request is told. */
function cannotConfirm(tool: string): string {
  return (
    `Tool "${tool}" needs your confirmation of its exact arguments before it runs, and this client can ask you neither by elicitation ` +
    `(2025-11-25) nor by an input request (2026-07-28): it did not run. Use a client that declares the elicitation capability.`
  );
}

function notApproved(tool: string, id: string, decision: Decision): string {
  switch (decision.status) {
    case 'declined':
      return `The call of "${tool}" was declined${decision.decidedByEmail ? ` by ${decision.decidedByEmail}` : ''} (approval request ${id}): ${decision.reason ?? 'no reason given'}`;
    case 'expired':
      return `The call of "${tool}" did not run: ${decision.reason ?? EXPIRED} (approval request ${id})`;
    default:
      return `The call of "${tool}" did not run: ${decision.reason ?? 'its approval request was withdrawn'} (approval request ${id})`;
  }
}
