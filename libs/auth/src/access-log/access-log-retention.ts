import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { describeError, HOURLY_AFTER_START, PeriodicJob } from '@app/common';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';
import { ToolCallEntity } from './tool-call.entity.js';

/** Rows removed per statement: a long-neglected table is emptied in short transactions, not one that locks it for minutes. */
const PRUNE_BATCH = 10_000;

/**
 * Keeps the access log (`mcp_tool_calls`) to `ACCESS_LOG_RETENTION`: a minute after start-up and
 * then every hour, calls older than that are deleted, oldest first, in batches. Without it the
 * table grows with every call for as long as the server runs, and a heavy user's data export
 * carries all of it. `0` keeps calls forever. Shutdown waits for the batch being deleted, no more.
 */
@Injectable()
export class AccessLogRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AccessLog');
  private readonly job = new PeriodicJob(
    HOURLY_AFTER_START,
    () => this.prune(),
    (error) => this.logger.error(`Could not prune the access log: ${describeError(error)}`),
  );

  constructor(
    @InjectRepository(ToolCallEntity) private readonly calls: Repository<ToolCallEntity>,
    @Inject(AUTH_OPTIONS) private readonly options: Pick<AuthModuleOptions, 'accessLogRetentionSeconds'>,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.accessLogRetentionSeconds > 0) this.job.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** Deletes the calls older than the retention; returns how many went. */
  async prune(): Promise<number> {
    if (this.options.accessLogRetentionSeconds === 0) return 0;
    let removed = 0;
    for (;;) {
      const [, deleted] = (await this.calls.query(
        `DELETE FROM mcp_tool_calls WHERE id IN (
           SELECT id FROM mcp_tool_calls WHERE called_at < now() - make_interval(secs => $1) ORDER BY called_at LIMIT $2)`,
        [this.options.accessLogRetentionSeconds, PRUNE_BATCH],
      )) as [unknown, number];
      removed += deleted;
      if (deleted < PRUNE_BATCH || this.job.stopping) break;
    }
    if (removed > 0) this.logger.log(`Removed ${removed} tool calls older than ACCESS_LOG_RETENTION (${this.options.accessLogRetentionSeconds} s)`);
    return removed;
  }
}
