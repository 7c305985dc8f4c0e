import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { McpCallObserver, ToolCallEvent } from '@app/mcp';
import { BackgroundWrites } from '@app/common';
import { ToolCallEntity } from './entities/tool-call.entity.js';

type ToolCallRow = Pick<ToolCallEntity, 'userId' | 'tool' | 'success' | 'durationMs'>;

/**
 * Records each `tools/call` by a known user after the answer has gone; a failed insert is logged.
 * Calls are written in batches, one multi-row insert each: a batch stays open while the previous
 * one is being written, so under load the database sees a few inserts, not one per call (on the
 * embedded database an insert costs more than the call it records).
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

  toolCalled({ caller, tool, success, durationMs }: ToolCallEvent): void {
    const row = { userId: caller.userId, tool, success, durationMs: Math.round(durationMs) };
    if (this.open) {
      this.open.push(row);
      return;
    }
    const batch = (this.open = [row]);
    const previous = this.lastWrite;
    this.lastWrite = this.background.run('tool calls in the access log', async () => {
      await previous;
      // Calls answered in this turn of the event loop join the batch too.
      await new Promise((resolve) => setImmediate(resolve));
      this.open = undefined;
      // Four array parameters whatever the batch's size: TypeORM's insert builds and scans one
      // parameter per column and row, which cost more than the database's own work here.
      await this.calls.query(
        `INSERT INTO mcp_tool_calls (user_id, tool, success, duration_ms)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::boolean[], $4::integer[])`,
        [batch.map((call) => call.userId), batch.map((call) => call.tool), batch.map((call) => call.success), batch.map((call) => call.durationMs)],
      );
    });
  }
}
