import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, NotFoundError, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { McpTaskQueries, McpTasks, taskOwnerOf } from '@app/mcp';
import { ListTasksQueryDto, TaskIdPipe, TaskPageDto, TaskViewDto } from './task.dto.js';

/** The caller's own MCP tasks. Another user's task id answers 404, exactly like a missing one. */
@ApiTag('tasks')
@Controller('api/tasks')
@Authenticated()
export class TasksController {
  constructor(
    private readonly queries: McpTaskQueries,
    private readonly tasks: McpTasks,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List your tasks, newest first', description: 'The tasks your tool calls became (MCP tasks extension), until their TTL ends.' })
  @ApiOkResponse({ type: TaskPageDto })
  async list(@CurrentCaller() caller: UserInfo, @Query() query: ListTasksQueryDto): Promise<TaskPageDto> {
    const page = await this.queries.list({ userId: caller.userId, ...(query.status ? { status: query.status } : {}) }, query.limit, query.cursor);
    return { items: page.items.map(TaskViewDto.of), nextCursor: page.nextCursor };
  }

  /** The same path as `tasks/cancel`: the tool stops on whichever instance runs it. */
  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel one of your tasks',
    description: 'Stops the tool wherever it runs, as tasks/cancel does; a task that already ended is answered as it ended.',
  })
  @ApiOkResponse({ type: TaskViewDto, description: 'The task, cancelled or as it had already ended' })
  @ApiNotFoundResponse({ description: 'No such task of yours' })
  async cancel(@CurrentCaller() caller: UserInfo, @Param('id', TaskIdPipe) id: string): Promise<TaskViewDto> {
    const cancelled = await this.tasks.cancel(id, taskOwnerOf(caller.userId));
    const task = cancelled ? await this.queries.find(id, caller.userId) : null;
    if (!task) throw new NotFoundError(`No task with id ${id}`);
    return TaskViewDto.of(task);
  }
}
