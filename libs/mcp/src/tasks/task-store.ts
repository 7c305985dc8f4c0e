import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { McpTaskEntity } from './mcp-task.entity.js';
import type { TaskError, TaskStatus } from './task-wire.js';

const ACTIVE = `status IN ('working', 'input_required')`;
/** What an `UPDATE … RETURNING` answers through TypeORM's driver: the rows, then their count. */
type UpdateOutcome = [McpTaskEntity[], number];

/** How a task ended, as its runner reports it. */
export type TaskOutcome = { status: 'completed'; result: Record<string, unknown> } | { status: 'failed'; error: TaskError };

/**
 * The `mcp_tasks` table. Every change of status is one conditional statement, so that two
 * instances (or a runner and a `tasks/cancel`) never both win: a settled task is never changed
 * again, and only the instance holding the lease settles a running one.
 */
@Injectable()
export class TaskStore {
  constructor(@InjectRepository(McpTaskEntity) private readonly tasks: Repository<McpTaskEntity>) {}

  /**
   * A new working task, leased to `instance`, unless its owner already has `maxActive` tasks in
   * progress (then null); the row exists before its id is handed out. The owner's creations take
   * turns (a transaction-scoped advisory lock on the owner): under READ COMMITTED, two inserts that
   * each count the other's row as not yet there would both pass the limit.
   */
  async create(fields: {
    owner: string;
    tool: string;
    statusMessage: string | null;
    ttlMs: number;
    instance: string;
    leaseMs: number;
    maxActive: number;
  }): Promise<McpTaskEntity | null> {
    const id = randomBytes(32).toString('base64url');
    const rows: { createdAt: Date }[] = await this.tasks.manager.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('mcp_tasks:' || $1, 0))`, [fields.owner]);
      return manager.query(
        `INSERT INTO mcp_tasks (id, owner, tool, status, status_message, ttl_ms, created_at, updated_at, expires_at, lease_owner, lease_expires_at)
          SELECT $1, $2, $3, 'working', $8, $4::integer, now(), now(), now() + $4::integer * interval '1 millisecond', $5, now() + $6::integer * interval '1 millisecond'
          WHERE (SELECT count(*) FROM (SELECT 1 FROM mcp_tasks WHERE owner = $2 AND ${ACTIVE} LIMIT $7::integer) AS active) < $7::integer
          RETURNING created_at AS "createdAt"`,
        [id, fields.owner, fields.tool, fields.ttlMs, fields.instance, fields.leaseMs, fields.maxActive, fields.statusMessage],
      );
    });
    if (rows.length === 0) return null;
    const createdAt = new Date(rows[0]!.createdAt);
    return this.tasks.create({
      id,
      owner: fields.owner,
      tool: fields.tool,
      status: 'working',
      statusMessage: fields.statusMessage,
      inputRequests: null,
      inputResponses: null,
      result: null,
      error: null,
      ttlMs: fields.ttlMs,
      createdAt,
      updatedAt: createdAt,
      expiresAt: new Date(createdAt.getTime() + fields.ttlMs),
      leaseOwner: fields.instance,
      leaseExpiresAt: new Date(createdAt.getTime() + fields.leaseMs),
    });
  }

  /** The caller's task; another caller's is as missing as one that never existed. */
  find(id: string, owner: string): Promise<McpTaskEntity | null> {
    return this.tasks.findOneBy({ id, owner });
  }

  /** Ends a running task `cancelled`; false when the caller has no such task, true when it was cancelled or had already ended. */
  async cancel(id: string, owner: string): Promise<boolean> {
    const [, cancelled] = (await this.tasks.query(
      `UPDATE mcp_tasks SET status = 'cancelled', input_requests = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = $1 AND owner = $2 AND ${ACTIVE}`,
      [id, owner],
    )) as UpdateOutcome;
    return cancelled > 0 || (await this.tasks.existsBy({ id, owner }));
  }

  /** Records a progress message of a running task. */
  async setStatusMessage(id: string, instance: string, message: string): Promise<void> {
    await this.tasks.query(`UPDATE mcp_tasks SET status_message = $3, updated_at = now() WHERE id = $1 AND lease_owner = $2 AND ${ACTIVE}`, [
      id,
      instance,
      message,
    ]);
  }

  /** Adds input requests the running task waits on (`input_required`); false when the task no longer runs here. */
  async requestInput(id: string, instance: string, requests: Record<string, unknown>): Promise<boolean> {
    const [, updated] = (await this.tasks.query(
      `UPDATE mcp_tasks SET status = 'input_required', input_requests = COALESCE(input_requests, '{}'::jsonb) || $3::jsonb, updated_at = now()
        WHERE id = $1 AND lease_owner = $2 AND ${ACTIVE}`,
      [id, instance, JSON.stringify(requests)],
    )) as UpdateOutcome;
    return updated > 0;
  }

  /**
   * Delivers answers to pending input requests (keys the task does not wait on are ignored); the
   * task is `working` again once none is pending. False when the caller has no such task.
   * `responses` were checked against the requests (`pendingInput`).
   */
  async answer(id: string, owner: string, responses: Record<string, unknown>): Promise<boolean> {
    const [rows] = (await this.tasks.query(
      `UPDATE mcp_tasks SET
          input_responses = COALESCE(input_responses, '{}'::jsonb) || (
            SELECT COALESCE(jsonb_object_agg(key, value), '{}'::jsonb) FROM jsonb_each($3::jsonb) WHERE input_requests ? key),
          input_requests = NULLIF(input_requests - ARRAY(SELECT jsonb_object_keys($3::jsonb)), '{}'::jsonb),
          status = CASE WHEN (input_requests - ARRAY(SELECT jsonb_object_keys($3::jsonb))) = '{}'::jsonb THEN 'working' ELSE status END,
          updated_at = now()
        WHERE id = $1 AND owner = $2 AND status = 'input_required'
        RETURNING id`,
      [id, owner, JSON.stringify(responses)],
    )) as UpdateOutcome;
    return rows.length > 0 || (await this.tasks.existsBy({ id, owner }));
  }

  /** The caller's task's pending input requests, by key; undefined when the caller has no such task. */
  async pendingInput(id: string, owner: string): Promise<Record<string, unknown> | undefined> {
    const task = await this.tasks.findOne({ where: { id, owner }, select: { id: true, status: true, inputRequests: true } });
    if (!task) return undefined;
    return task.status === 'input_required' ? (task.inputRequests ?? {}) : {};
  }

  /** The answers delivered so far to the given input requests (their keys are unique to one request, so reading is enough). */
  async readResponses(id: string, keys: readonly string[]): Promise<Record<string, unknown>> {
    const rows: { taken: Record<string, unknown> | null }[] = await this.tasks.query(
      'SELECT (SELECT jsonb_object_agg(key, value) FROM jsonb_each(input_responses) WHERE key = ANY($2::text[])) AS taken FROM mcp_tasks WHERE id = $1',
      [id, keys],
    );
    return rows[0]?.taken ?? {};
  }

  /** Records how a running task ended; nothing when it was cancelled, or is no longer this instance's. */
  async settle(id: string, instance: string, outcome: TaskOutcome): Promise<void> {
    await this.tasks.query(
      `UPDATE mcp_tasks SET status = $3, result = $4::jsonb, error = $5::jsonb, input_requests = NULL, input_responses = NULL,
          lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = $1 AND lease_owner = $2 AND ${ACTIVE}`,
      [
        id,
        instance,
        outcome.status,
        outcome.status === 'completed' ? JSON.stringify(outcome.result) : null,
        outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
      ],
    );
  }

  /**
   * Extends this instance's leases on the tasks it runs, and names those among them that are no
   * longer running (cancelled, or taken over as failed after a lapse) with their status.
   */
  async renewLeases(instance: string, ids: readonly string[], leaseMs: number): Promise<Map<string, TaskStatus>> {
    if (ids.length === 0) return new Map();
    const [renewed] = (await this.tasks.query(
      `UPDATE mcp_tasks SET lease_expires_at = now() + $3 * interval '1 millisecond'
        WHERE id = ANY($1::text[]) AND lease_owner = $2 AND ${ACTIVE} RETURNING id`,
      [ids, instance, leaseMs],
    )) as [{ id: string }[], number];
    const live = new Set(renewed.map((row) => row.id));
    const gone = ids.filter((id) => !live.has(id));
    const statuses = new Map<string, TaskStatus>(gone.map((id) => [id, 'failed']));
    if (gone.length) {
      const rows: { id: string; status: TaskStatus }[] = await this.tasks.query('SELECT id, status FROM mcp_tasks WHERE id = ANY($1::text[])', [gone]);
      for (const row of rows) statuses.set(row.id, row.status);
    }
    return statuses;
  }

  /** Ends `failed` every running task whose lease ran out: the instance running it stopped. */
  async failAbandoned(error: TaskError): Promise<string[]> {
    const [rows] = (await this.tasks.query(
      `UPDATE mcp_tasks SET status = 'failed', error = $1::jsonb, input_requests = NULL, input_responses = NULL,
          lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE ${ACTIVE} AND lease_expires_at < now() RETURNING id`,
      [JSON.stringify(error)],
    )) as [{ id: string }[], number];
    return rows.map((row) => row.id);
  }

  /** Ends `failed` the tasks this instance still runs (at shutdown). */
  async failRunningOn(instance: string, error: TaskError): Promise<void> {
    await this.tasks.query(
      `UPDATE mcp_tasks SET status = 'failed', error = $2::jsonb, input_requests = NULL, input_responses = NULL,
          lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE lease_owner = $1 AND ${ACTIVE}`,
      [instance, JSON.stringify(error)],
    );
  }

  /** Deletes tasks past their TTL that have ended; a running one stays until it ends. */
  async purgeExpired(): Promise<number> {
    const [, deleted] = (await this.tasks.query(`DELETE FROM mcp_tasks WHERE expires_at < now() AND NOT (${ACTIVE})`)) as UpdateOutcome;
    return deleted;
  }
}
