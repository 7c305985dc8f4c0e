import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { cursorKey, decodeCursor, instantKeySql, toPage, type Page, type UserInfo } from '@app/common';
import { McpApprovalEntity, type ApprovalStatus, type CallerSnapshot, type RunOutcome } from './approval.entity.js';

/** Which requests a list holds; every field narrows it. */
export interface ApprovalFilter {
  status?: ApprovalStatus;
  userId?: string;
  tool?: string;
}

/** Newest first: the request's time (to the microsecond), then its id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;

/** What an `UPDATE … RETURNING` answers through TypeORM's driver: the rows, then their count. */
type UpdateOutcome<T> = [T[], number];

/** A request that just left `pending`, as the statement that moved it returns it. */
export interface EndedRequest {
  id: string;
  tool: string;
  userId: string;
  taskId: string | null;
  requestedAt: Date;
  decidedAt: Date;
  status: ApprovalStatus;
  reason: string | null;
}

const ENDED_COLUMNS = `id, tool, user_id AS "userId", task_id AS "taskId", requested_at AS "requestedAt", decided_at AS "decidedAt", status, reason`;
/** What every end of a pending request does to its row: the arguments go, their digest stays. */
const DECIDED = `sealed_arguments = NULL, decided_at = now()`;
/** A task that is still running: a request whose task ended belongs to a call that is over. */
const TASK_RUNS = `EXISTS (SELECT 1 FROM mcp_tasks WHERE mcp_tasks.id = mcp_approvals.task_id AND mcp_tasks.status IN ('working', 'input_required'))`;
/** How long a webhook delivery may take before another instance may try it again. */
const DELIVERY_CLAIM = `interval '30 seconds'`;

const asEnded = (row: EndedRequest): EndedRequest => ({ ...row, requestedAt: new Date(row.requestedAt), decidedAt: new Date(row.decidedAt) });

/**
 * The `mcp_approvals` table. Every change of status is one conditional statement on `pending`, so
 * that two approvers (or an approver and the expiry, on any instances) never both win, and an
 * approved call is claimed once before it runs.
 */
@Injectable()
export class ApprovalStore {
  constructor(@InjectRepository(McpApprovalEntity) private readonly approvals: Repository<McpApprovalEntity>) {}

  async create(fields: {
    id: string;
    tool: string;
    userId: string;
    caller: CallerSnapshot;
    sealedArguments: string;
    argumentsDigest: string;
    taskId: string | null;
    timeoutMs: number;
    webhook: boolean;
  }): Promise<McpApprovalEntity> {
    const [row]: { requestedAt: Date; expiresAt: Date }[] = await this.approvals.query(
      `INSERT INTO mcp_approvals (id, tool, user_id, caller, status, sealed_arguments, arguments_digest, task_id, requested_at, expires_at, webhook_due_at)
        VALUES ($1, $2, $3, $4::jsonb, 'pending', $5, $6, $7, now(), now() + $8::integer * interval '1 millisecond', CASE WHEN $9::boolean THEN now() END)
        RETURNING requested_at AS "requestedAt", expires_at AS "expiresAt"`,
      [
        fields.id,
        fields.tool,
        fields.userId,
        JSON.stringify(fields.caller),
        fields.sealedArguments,
        fields.argumentsDigest,
        fields.taskId,
        fields.timeoutMs,
        fields.webhook,
      ],
    );
    return this.approvals.create({
      ...fields,
      status: 'pending',
      requestedAt: new Date(row!.requestedAt),
      expiresAt: new Date(row!.expiresAt),
      decidedAt: null,
      decidedBy: null,
      decidedByEmail: null,
      reason: null,
      ranAt: null,
      outcome: null,
      outcomeMessage: null,
      webhookDueAt: null,
      webhookAttempts: 0,
    });
  }

  find(id: string): Promise<McpApprovalEntity | null> {
    return this.approvals.findOneBy({ id });
  }

  async list(filter: ApprovalFilter, limit: number, cursor?: string): Promise<Page<McpApprovalEntity>> {
    const query = this.approvals
      .createQueryBuilder('approval')
      .addSelect(instantKeySql('approval.requested_at'), 'requested_key')
      .orderBy('approval.requested_at', 'DESC')
      .addOrderBy('approval.id', 'DESC')
      .limit(limit + 1);
    if (filter.status !== undefined) query.andWhere('approval.status = :status', { status: filter.status });
    if (filter.userId !== undefined) query.andWhere('approval.user_id = :userId', { userId: filter.userId });
    if (filter.tool !== undefined) query.andWhere('approval.tool = :tool', { tool: filter.tool });
    if (cursor !== undefined) {
      const [requestedAt, id] = decodeCursor(cursor, KEYSET);
      query.andWhere('(approval.requested_at, approval.id) < (CAST(:requestedAt AS timestamptz), CAST(:id AS uuid))', { requestedAt, id });
    }
    const { entities, raw } = await query.getRawAndEntities<{ requested_key: string }>();
    return toPage(entities, limit, KEYSET, (approval, index) => [raw[index]!.requested_key, approval.id]);
  }

  /**
   * The caller's request, without a task, for this tool and these arguments (by their digest) that
   * is in `status` and has not run, within its time: what a call made again finds (still waiting,
   * or approved and to run now).
   */
  findOpen(userId: string, tool: string, digest: string, status: 'pending' | 'approved'): Promise<McpApprovalEntity | null> {
    return this.approvals
      .createQueryBuilder('approval')
      .where('approval.user_id = :userId AND approval.tool = :tool AND approval.arguments_digest = :digest', { userId, tool, digest })
      .andWhere('approval.status = :status AND approval.task_id IS NULL AND approval.ran_at IS NULL AND approval.expires_at > now()', { status })
      .orderBy('approval.requested_at', 'DESC')
      .getOne();
  }

  /**
   * Approves or declines a pending request that has not expired, by someone other than who asked
   * (four eyes); null when it is no longer pending (decided, expired, withdrawn), or was the decider's own.
   */
  async decide(id: string, verdict: 'approved' | 'declined', decider: UserInfo, reason: string | null): Promise<EndedRequest | null> {
    const [rows] = (await this.approvals.query(
      `UPDATE mcp_approvals SET status = $2, ${DECIDED}, decided_by = $3, decided_by_email = $4, reason = $5
        WHERE id = $1 AND status = 'pending' AND expires_at > now() AND user_id <> $3
        RETURNING ${ENDED_COLUMNS}`,
      [id, verdict, decider.userId, decider.email ?? null, reason],
    )) as UpdateOutcome<EndedRequest>;
    return rows[0] ? asEnded(rows[0]) : null;
  }

  /** Withdraws a pending request (its call was cancelled); null when it was no longer pending. */
  async withdraw(id: string, reason: string): Promise<EndedRequest | null> {
    const [rows] = (await this.approvals.query(
      `UPDATE mcp_approvals SET status = 'cancelled', ${DECIDED}, reason = $2 WHERE id = $1 AND status = 'pending' RETURNING ${ENDED_COLUMNS}`,
      [id, reason],
    )) as UpdateOutcome<EndedRequest>;
    return rows[0] ? asEnded(rows[0]) : null;
  }

  /** Ends the requests whose time is up, and those whose call is over (their task ended: cancelled, failed, its instance gone). */
  async endOverdue(expired: string, orphaned: string): Promise<EndedRequest[]> {
    const [rows] = (await this.approvals.query(
      `UPDATE mcp_approvals SET status = CASE WHEN expires_at <= now() THEN 'expired' ELSE 'cancelled' END, ${DECIDED},
          reason = CASE WHEN expires_at <= now() THEN $1 ELSE $2 END
        WHERE status = 'pending' AND (expires_at <= now() OR (task_id IS NOT NULL AND NOT ${TASK_RUNS}))
        RETURNING ${ENDED_COLUMNS}`,
      [expired, orphaned],
    )) as UpdateOutcome<EndedRequest>;
    return rows.map(asEnded);
  }

  /** Records as refused the approved calls whose task ended before they could run (their instance stopped). */
  async refuseOrphanedRuns(why: string): Promise<EndedRequest[]> {
    const [rows] = (await this.approvals.query(
      `UPDATE mcp_approvals SET ran_at = now(), outcome = 'refused', outcome_message = $1
        WHERE status = 'approved' AND ran_at IS NULL AND task_id IS NOT NULL AND NOT ${TASK_RUNS}
        RETURNING ${ENDED_COLUMNS}`,
      [why],
    )) as UpdateOutcome<EndedRequest>;
    return rows.map(asEnded);
  }

  /** The requests among `ids` that are no longer pending, and those gone (erased), for the calls waiting on them. */
  async settledAmong(ids: readonly string[]): Promise<{ settled: McpApprovalEntity[]; gone: string[] }> {
    if (ids.length === 0) return { settled: [], gone: [] };
    const rows = await this.approvals.createQueryBuilder('approval').where('approval.id = ANY(:ids)', { ids }).getMany();
    const found = new Set(rows.map((row) => row.id));
    return { settled: rows.filter((row) => row.status !== 'pending'), gone: ids.filter((id) => !found.has(id)) };
  }

  /** Claims an approved call for its one run: false when it ran already (or is running), or was not approved. */
  async claimRun(id: string): Promise<boolean> {
    const [, claimed] = (await this.approvals.query(`UPDATE mcp_approvals SET ran_at = now() WHERE id = $1 AND status = 'approved' AND ran_at IS NULL`, [
      id,
    ])) as UpdateOutcome<never>;
    return claimed > 0;
  }

  async recordOutcome(id: string, outcome: RunOutcome, message: string | null): Promise<void> {
    await this.approvals.query(`UPDATE mcp_approvals SET outcome = $2, outcome_message = $3 WHERE id = $1`, [id, outcome, message]);
  }

  /** Claims the webhook deliveries that are due (each for as long as a delivery may take), oldest first. */
  async claimDueWebhooks(limit: number): Promise<McpApprovalEntity[]> {
    const [rows] = (await this.approvals.query(
      `UPDATE mcp_approvals SET webhook_due_at = now() + ${DELIVERY_CLAIM}, webhook_attempts = webhook_attempts + 1
        WHERE id IN (SELECT id FROM mcp_approvals WHERE webhook_due_at <= now() ORDER BY webhook_due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [limit],
    )) as UpdateOutcome<{ id: string }>;
    if (rows.length === 0) return [];
    return this.approvals
      .createQueryBuilder('approval')
      .where('approval.id = ANY(:ids)', { ids: rows.map((row) => row.id) })
      .getMany();
  }

  /** After a delivery: none left to make (null), or the next attempt's time. */
  async scheduleWebhook(id: string, nextInMs: number | null): Promise<void> {
    await this.approvals.query(
      `UPDATE mcp_approvals SET webhook_due_at = CASE WHEN $2::integer IS NULL THEN NULL ELSE now() + $2::integer * interval '1 millisecond' END WHERE id = $1`,
      [id, nextInMs],
    );
  }

  /** Requests waiting for a decision, across the deployment (read through the partial index of pending ones). */
  async pendingCount(): Promise<number> {
    const [row]: { count: number }[] = await this.approvals.query(`SELECT count(*)::int AS count FROM mcp_approvals WHERE status = 'pending'`);
    return row!.count;
  }
}
