import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { cursorKey, decodeCursor, instantKeySql, toPage, type Page } from '@app/common';
import { ANONYMOUS_CALLER } from '../caller.js';
import { McpTaskEntity } from './mcp-task.entity.js';
import type { TaskStatus } from './task-wire.js';

export const TASK_STATUSES: readonly TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** A task as the REST routes show it: never its input requests, answers or result. */
export interface TaskView {
  id: string;
  tool: string;
  status: TaskStatus;
  statusMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  /** The JSON-RPC error a failed task ended with. */
  error: { code: number; message: string } | null;
  /** The owner's user id; null for an anonymous caller's task. */
  ownerUserId: string | null;
}

export interface TaskFilter {
  /** Only this user's tasks. */
  userId?: string;
  status?: TaskStatus;
  tool?: string;
}

const USER_OWNER_PREFIX = 'user:';
/** A task's id: 32 random bytes, base64url (see `TaskStore.create`). */
const TASK_ID = /^[A-Za-z0-9_-]{43}$/;
/** Newest first: the creation time (to the microsecond), then the id. */
const KEYSET = [cursorKey.instant, cursorKey.text] as const;

/** The owner key of a signed-in user's tasks, as `callerKey` writes it. */
export const taskOwnerOf = (userId: string): string => `${USER_OWNER_PREFIX}${userId}`;

/** The owner key of a task as `McpTasks.cancel` takes it. */
export const ownerKeyOf = (task: Pick<TaskView, 'ownerUserId'>): string => (task.ownerUserId === null ? ANONYMOUS_CALLER : taskOwnerOf(task.ownerUserId));

/** Whether `id` is spelled as task ids are: anything else names no task. */
export const isTaskId = (id: string): boolean => TASK_ID.test(id);

function toView(task: McpTaskEntity): TaskView {
  return {
    id: task.id,
    tool: task.tool,
    status: task.status,
    statusMessage: task.statusMessage,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
    expiresAt: task.expiresAt,
    error: task.error ? { code: task.error.code, message: task.error.message } : null,
    ownerUserId: task.owner.startsWith(USER_OWNER_PREFIX) ? task.owner.slice(USER_OWNER_PREFIX.length) : null,
  };
}

/**
 * The `mcp_tasks` table read for people rather than for the protocol: a user's tasks or all of
 * them, newest first, and how many are running. Changes of status stay `TaskStore`'s.
 */
@Injectable()
export class McpTaskQueries {
  constructor(@InjectRepository(McpTaskEntity) private readonly tasks: Repository<McpTaskEntity>) {}

  async list(filter: TaskFilter, limit: number, cursor?: string): Promise<Page<TaskView>> {
    const query = this.tasks
      .createQueryBuilder('task')
      .addSelect(instantKeySql('task.created_at'), 'created_key')
      .orderBy('task.created_at', 'DESC')
      .addOrderBy('task.id', 'DESC')
      .limit(limit + 1);
    if (filter.userId !== undefined) query.andWhere('task.owner = :owner', { owner: taskOwnerOf(filter.userId) });
    if (filter.status !== undefined) query.andWhere('task.status = :status', { status: filter.status });
    if (filter.tool !== undefined) query.andWhere('task.tool = :tool', { tool: filter.tool });
    if (cursor !== undefined) {
      const [createdAt, id] = decodeCursor(cursor, KEYSET);
      query.andWhere('(task.created_at, task.id) < (CAST(:createdAt AS timestamptz), :id)', { createdAt, id });
    }
    const { entities, raw } = await query.getRawAndEntities<{ created_key: string }>();
    return toPage(entities, limit, KEYSET, (task, index) => [raw[index]!.created_key, task.id], toView);
  }

  /** A task of `userId`'s, or of anyone's when `userId` is undefined; null for an id no such task has. */
  async find(id: string, userId?: string): Promise<TaskView | null> {
    if (!isTaskId(id)) return null;
    const task = await this.tasks.findOneBy(userId === undefined ? { id } : { id, owner: taskOwnerOf(userId) });
    return task && toView(task);
  }

  /** Tasks running and waiting for input across the deployment (read through the partial index of active tasks). */
  async activeCounts(): Promise<{ working: number; inputRequired: number }> {
    const [row]: { working: number; inputRequired: number }[] = await this.tasks.query(
      `SELECT (count(*) FILTER (WHERE status = 'working'))::int AS working, (count(*) FILTER (WHERE status = 'input_required'))::int AS "inputRequired"
       FROM mcp_tasks WHERE status IN ('working', 'input_required')`,
    );
    return row!;
  }
}
