import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag } from '@app/common';
import { AccessLogStats, AdminOnly } from '@app/auth';
import { DatabaseProbe, ServerInstances } from '@app/database';
import { McpTaskQueries } from '@app/mcp';
import { OverviewDto } from './overview.dto.js';

/** Failed calls the overview lists. */
const RECENT_ERRORS = 20;

/**
 * The admin console's first page: the deployment at a glance. Everything comes from the database
 * the instances share (their reports, the access log, the tasks), so any instance answers for all
 * of them; each instance's Prometheus counters (`/metrics`) count its own calls only.
 */
@ApiTag('admin')
@Controller('admin/overview')
@AdminOnly()
export class AdminOverviewController {
  constructor(
    private readonly instances: ServerInstances,
    private readonly database: DatabaseProbe,
    private readonly calls: AccessLogStats,
    private readonly tasks: McpTaskQueries,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Show the deployment at a glance',
    description:
      'Live instances, the database, the last hour of tool calls by signed-in users (all instances, from the access log), tasks in progress and the latest failed calls.',
  })
  @ApiOkResponse({ type: OverviewDto })
  async get(): Promise<OverviewDto> {
    // Alone first, so that its latency is not that of waiting behind the other reads (the embedded database runs one statement at a time).
    const database = await this.database.check();
    const [instances, lastHour, tasks, recentErrors] = await Promise.all([
      this.instances.live(),
      this.calls.lastHour(),
      this.tasks.activeCounts(),
      this.calls.recentErrors(RECENT_ERRORS),
    ]);
    return { instances, database, lastHour, tasks, recentErrors };
  }
}
