import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { McpCallObserver, ToolCallEvent } from '@app/mcp';
import { BackgroundWrites } from '@app/common';
import { ToolCallEntity } from './tool-call.entity.js';

type ToolCallRow = Pick<ToolCallEntity, 'userId' | 'tool' | 'success' | 'durationMs' | 'requestId' | 'error'>;

/**
 * How long a batch stays open after its first call. On the embedded database each insert is a
 * statement and a commit in the server's own thread: under load, `whoami` with a JWT cost 90 to
 * 100 µs of CPU per call with 50 ms batches against 130 to 165 µs with batches of one event-loop
 * turn; 200 ms batches were no cheaper and, written in one go, tripled p99.
 */
const BATCH_WINDOW_MS = 50;

/**
 * An error message as text the database keeps: it may quote what the caller sent, and PostgreSQL
 * refuses U+0000 and half a surrogate pair, which would fail the whole batch.
 */
function storable(error: string | undefined): string | null {
  return error === undefined ? null : error.replaceAll('\u0000', '\ufffd').toWellFormed();
}

/**
 * Records each `tools/call` by a known user after the answer has gone; a failed insert is logged.
 * Calls are written in batches, one multi-row insert each: a batch stays open for
 * `BATCH_WINDOW_MS` and while the previous one is being written, so under load the database sees
 * a few inserts, not one per call (on the embedded database an insert costs more than the call it
 * records). Shutdown waits for the open batch (`BackgroundWrites`).
 */
@Injectable()
export class AccessLog implements McpCallObserver {
  /** The batch the next insert takes; more calls join it until that insert starts. */
  private open?: ToolCallRow[];
  private lastWrite: Promise<void> = Promise.resolve();

  constructor(
    @InjectRepository(ToolCallEntity) private readonly calls: Repository<ToolCallEntity>,
    private readonly background: BackgroundWrites,
  ) {}

  toolCalled({ caller, tool, success, durationMs, requestId, error }: ToolCallEvent): void {
    const row = { userId: caller.userId, tool, success, durationMs: Math.round(durationMs), requestId: requestId ?? null, error: storable(error) };
    if (this.open) {
      this.open.push(row);
      return;
    }
    const batch = (this.open = [row]);
    const previous = this.lastWrite;
    this.lastWrite = this.background.run('tool calls in the access log', async () => {
      await previous;
      await new Promise((resolve) => setTimeout(resolve, BATCH_WINDOW_MS));
      this.open = undefined;
      // Six array parameters whatever the batch's size: TypeORM's insert builds and scans one
      // parameter per column and row, which cost more than the database's own work here. A user
      // erased since their call has nothing left to log against; their row must not fail the batch.
      // Ids follow the order of the calls.
      await this.calls.query(
        `INSERT INTO mcp_tool_calls (user_id, tool, success, duration_ms, request_id, error)
         SELECT call.user_id, call.tool, call.success, call.duration_ms, call.request_id, call.error
         FROM unnest($1::uuid[], $2::text[], $3::boolean[], $4::integer[], $5::text[], $6::text[])
           WITH ORDINALITY AS call (user_id, tool, success, duration_ms, request_id, error, position)
         WHERE EXISTS (SELECT 1 FROM users WHERE users.id = call.user_id)
         ORDER BY call.position`,
        [
          batch.map((call) => call.userId),
          batch.map((call) => call.tool),
          batch.map((call) => call.success),
          batch.map((call) => call.durationMs),
          batch.map((call) => call.requestId),
          batch.map((call) => call.error),
        ],
      );
    });
  }
}
