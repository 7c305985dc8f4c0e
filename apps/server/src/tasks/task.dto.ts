import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, IsUUID, MaxLength } from 'class-validator';
import { invalidRequest, Omittable, PageQueryDto } from '@app/common';
import { isTaskId, TASK_STATUSES, type TaskStatus, type TaskView } from '@app/mcp';

/** A task id in a path: 43 characters of base64url (32 random bytes), else 400 naming the parameter. */
@Injectable()
export class TaskIdPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (isTaskId(value)) return value;
    throw invalidRequest({ [metadata.data ?? 'id']: 'must be a task id: 43 characters of base64url' });
  }
}

export class TaskErrorDto {
  @ApiProperty({ description: 'The JSON-RPC error code', example: -32603 }) code: number;
  @ApiProperty({ example: 'The server running this task stopped before it finished; call the tool again' }) message: string;
}

/** A task as its owner sees it: never its result, nor the input it asks for (those are the MCP client's, through tasks/get). */
export class TaskViewDto {
  @ApiProperty({ description: 'The task id: 32 random bytes, base64url (43 characters)', example: 'yPq0n2Xh0f6b1Y4o9c0m8v3W5r2t7u1i6e4a9s8d7fQ' })
  id: string;

  @ApiProperty({ description: 'The tool the task runs' }) tool: string;

  @ApiProperty({ enum: TASK_STATUSES }) status: TaskStatus;

  @ApiProperty({ type: String, nullable: true, description: 'The latest progress the tool reported' }) statusMessage: string | null;

  @ApiProperty({ type: String, format: 'date-time' }) createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time' }) updatedAt: Date;

  @ApiProperty({ type: String, format: 'date-time', description: 'When the task and its result are deleted (MCP_TASK_TTL after its creation)' })
  expiresAt: Date;

  @ApiProperty({ type: TaskErrorDto, nullable: true, description: 'Why a `failed` task failed' }) error: TaskErrorDto | null;

  static of(task: TaskView): TaskViewDto {
    const { id, tool, status, statusMessage, createdAt, updatedAt, expiresAt, error } = task;
    return { id, tool, status, statusMessage, createdAt, updatedAt, expiresAt, error };
  }
}

export class TaskPageDto {
  @ApiProperty({ type: [TaskViewDto], description: 'Newest first' }) items: TaskViewDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last' }) nextCursor: string | null;
}

export class AdminTaskViewDto extends TaskViewDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: "The owner's user id; null for an anonymous caller's task" })
  ownerUserId: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The owner's e-mail address, when known" }) ownerEmail: string | null;
}

export class AdminTaskPageDto {
  @ApiProperty({ type: [AdminTaskViewDto], description: 'Newest first' }) items: AdminTaskViewDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last' }) nextCursor: string | null;
}

export class ListTasksQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: TASK_STATUSES, description: 'Only the tasks in this status' })
  @Omittable()
  @IsIn(TASK_STATUSES, { message: `status must be one of ${TASK_STATUSES.join(', ')}` })
  status?: TaskStatus;
}

export class AdminListTasksQueryDto extends ListTasksQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Only this user's tasks" })
  @Omittable()
  @IsUUID('all', { message: 'userId must be a UUID' })
  userId?: string;

  @ApiPropertyOptional({ description: 'Only the tasks of this tool', example: 'export_readings' })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  tool?: string;
}
