import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, NotFoundError, type UserInfo } from '@app/common';
import { AdminOnly, AdminUsers, CurrentCaller, UserEmails } from '@app/auth';
import { McpTaskQueries, McpTasks, ownerKeyOf, type TaskView } from '@app/mcp';
import { AdminListTasksQueryDto, AdminTaskPageDto, AdminTaskViewDto, TaskIdPipe, TaskViewDto } from './task.dto.js';

/** Every user's MCP tasks, with their owners; a cancellation is on the audit trail (reading the list is not). */
@ApiTag('admin')
@Controller('admin/tasks')
@AdminOnly()
export class AdminTasksController {
  constructor(
    private readonly queries: McpTaskQueries,
    private readonly tasks: McpTasks,
    private readonly emails: UserEmails,
    private readonly admins: AdminUsers,
  ) {}

  @Get()
  @ApiOperation({ summary: "List all users' tasks, newest first" })
  @ApiOkResponse({ type: AdminTaskPageDto })
  async list(@Query() query: AdminListTasksQueryDto): Promise<AdminTaskPageDto> {
    const { status, userId, tool } = query;
    const page = await this.queries.list(
      { ...(status ? { status } : {}), ...(userId ? { userId } : {}), ...(tool ? { tool } : {}) },
      query.limit,
      query.cursor,
    );
    return { items: await this.withEmails(page.items), nextCursor: page.nextCursor };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: "Cancel any user's task",
    description: 'As the owner would (tasks/cancel); on the audit trail as task.cancel, the owner its target.',
  })
  @ApiOkResponse({ type: AdminTaskViewDto, description: 'The task, cancelled or as it had already ended' })
  @ApiNotFoundResponse({ description: 'No such task' })
  async cancel(@CurrentCaller() admin: UserInfo, @Param('id', TaskIdPipe) id: string): Promise<AdminTaskViewDto> {
    const task = await this.queries.find(id);
    if (!task) throw new NotFoundError(`No task with id ${id}`);
    const detail = { taskId: id, tool: task.tool };
    const ownerUserId = task.ownerUserId;
    // The owner is the target, when there is one left to name (an anonymous caller's task, or one whose user was erased since, has none).
    if (ownerUserId !== null && (await this.emails.of([ownerUserId])).has(ownerUserId)) await this.admins.audited(admin, ownerUserId, 'task.cancel', detail);
    else await this.admins.auditedWithoutUser(admin, 'task.cancel', { ...detail, ownerUserId });
    await this.tasks.cancel(id, ownerKeyOf(task));
    const [cancelled] = await this.withEmails([(await this.queries.find(id)) ?? task]);
    return cancelled!;
  }

  private async withEmails(tasks: TaskView[]): Promise<AdminTaskViewDto[]> {
    const emails = await this.emails.of(tasks.flatMap((task) => (task.ownerUserId ? [task.ownerUserId] : [])));
    return tasks.map((task) => ({
      ...TaskViewDto.of(task),
      ownerUserId: task.ownerUserId,
      ownerEmail: task.ownerUserId ? (emails.get(task.ownerUserId) ?? null) : null,
    }));
  }
}
