import { ApiProperty } from '@nestjs/swagger';

export class InstanceDto {
  @ApiProperty({ format: 'uuid', description: 'Chosen by the instance at start-up' }) id: string;
  @ApiProperty() hostname: string;
  @ApiProperty({ example: '1.4.0' }) version: string;
  @ApiProperty({ type: String, format: 'date-time' }) startedAt: Date;
  @ApiProperty({ type: String, format: 'date-time', description: 'Its latest report (every 15 s)' }) lastSeenAt: Date;
}

export class DatabaseStatusDto {
  @ApiProperty({ enum: ['embedded', 'postgres'] }) kind: 'embedded' | 'postgres';
  @ApiProperty({ description: 'Whether it answered SELECT 1 within 2 s' }) ok: boolean;
  @ApiProperty({ type: Number, nullable: true, description: 'How long SELECT 1 took, in milliseconds' }) latencyMs: number | null;
}

export class MinuteOfCallsDto {
  @ApiProperty({ type: String, format: 'date-time', description: 'The minute it starts' }) minute: Date;
  @ApiProperty() calls: number;
  @ApiProperty({ description: 'Calls that failed: a tool error, or a failure of the server' }) errors: number;
}

export class ToolCallStatsDto {
  @ApiProperty() tool: string;
  @ApiProperty() calls: number;
  @ApiProperty() errors: number;
  @ApiProperty({ description: 'Median duration, in milliseconds' }) p50Ms: number;
  @ApiProperty({ description: '99th percentile of the duration, in milliseconds' }) p99Ms: number;
}

export class LastHourDto {
  @ApiProperty({ type: [MinuteOfCallsDto], description: 'Sixty minutes, oldest first: the current one and the 59 before it' }) perMinute: MinuteOfCallsDto[];
  @ApiProperty({ type: [ToolCallStatsDto], description: 'The tools called in those minutes, most called first' }) tools: ToolCallStatsDto[];
}

export class ActiveTasksDto {
  @ApiProperty() working: number;
  @ApiProperty({ description: 'Waiting for the client to answer a question' }) inputRequired: number;
}

export class RecentErrorDto {
  @ApiProperty({ type: String, format: 'date-time' }) at: Date;
  @ApiProperty() tool: string;
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty({ type: String, nullable: true }) userEmail: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The X-Request-Id of the call: the server log holds the details under it' })
  requestId: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The tool error, or "Internal error" for a failure of the server (never its details)' })
  message: string | null;
}

/** The state of the whole deployment, read from the database all instances share. */
export class OverviewDto {
  @ApiProperty({ type: [InstanceDto], description: 'The instances that reported within the last 45 s, oldest first' }) instances: InstanceDto[];
  @ApiProperty({ type: DatabaseStatusDto }) database: DatabaseStatusDto;
  @ApiProperty({ type: LastHourDto, description: 'Tool calls by signed-in users (the access log), every instance together' }) lastHour: LastHourDto;
  @ApiProperty({ type: ActiveTasksDto, description: 'MCP tasks in progress, of every user' }) tasks: ActiveTasksDto;
  @ApiProperty({ type: [RecentErrorDto], description: 'The latest failed calls by signed-in users, newest first, at most 20' }) recentErrors: RecentErrorDto[];
}
