import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, Matches } from 'class-validator';
import { Omittable } from '@app/common';
import { AGENT_NAME_PATTERN, AGENT_NAME_RULE, type ApprovalPolicy, type TaskSupportLevel, type ToolSummary } from '@app/mcp';

const TASK_SUPPORT: TaskSupportLevel[] = ['forbidden', 'optional', 'required'];

export class ToolsQueryDto {
  @ApiPropertyOptional({
    description: `Apply this agent's ALLOWED_TOOLS_/DISALLOWED_TOOLS_ lists (${AGENT_NAME_RULE}); without it, your credential's agent (an MCP secret's), else all tools`,
    example: 'cursor',
  })
  @Omittable()
  @Matches(AGENT_NAME_PATTERN, { message: `agent must be ${AGENT_NAME_RULE}` })
  agent?: string;
}

/** One tool as `tools/list` publishes it, with what the server knows besides. */
export class ToolViewDto implements ToolSummary {
  @ApiProperty({ example: 'remember' }) name: string;
  @ApiProperty({ type: String, nullable: true }) title: string | null;
  @ApiProperty({ description: 'What models read to decide whether to call it; empty when the tool has none' }) description: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema of its arguments' }) inputSchema: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'JSON Schema of its structured result, when it declares one' })
  outputSchema: Record<string, unknown> | null;
  @ApiProperty({ type: [String], description: 'OAuth scopes a token that carries scopes needs for it' }) scopes: string[];
  @ApiProperty({ enum: TASK_SUPPORT, description: '`required`: it runs only as an MCP task, so it cannot be called here' })
  taskSupport: TaskSupportLevel;
  @ApiProperty({
    enum: ['caller', 'approver'],
    nullable: true,
    description:
      'Who must allow each call before it runs: `caller` (the user confirms it), `approver` (an approver decides); such a tool is called on /mcp alone',
  })
  approval: ApprovalPolicy | null;
  @ApiProperty({ description: 'It acts for the signed-in user (reads or writes their data)' }) actsForUser: boolean;
  @ApiProperty({ description: '`packaged`, or the tool-directory file that defined it', example: 'packaged' }) origin: string;
  @ApiProperty({ description: 'False for the tools of a class disabled at start-up (`static enabled()`): listed, never callable' })
  enabled: boolean;

  static of(summary: ToolSummary): ToolViewDto {
    return { ...summary, scopes: [...summary.scopes] };
  }
}

export class ToolListDto {
  @ApiProperty({ type: String, nullable: true, description: 'The agent whose lists were applied; null for all tools' }) agent: string | null;
  @ApiProperty({ type: [ToolViewDto], description: 'The tools you may call, then the disabled ones you would see' }) tools: ToolViewDto[];
}

export class CallToolDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The tool's arguments, as its inputSchema describes them",
    example: { text: 'hello' },
  })
  @IsObject({ message: 'arguments must be an object' })
  arguments: Record<string, unknown>;

  @ApiPropertyOptional({ description: `Call as this agent sees the tools (${AGENT_NAME_RULE})`, example: 'cursor' })
  @Omittable()
  @Matches(AGENT_NAME_PATTERN, { message: `agent must be ${AGENT_NAME_RULE}` })
  agent?: string;
}

/** An MCP `CallToolResult`, as `tools/call` answers it. */
export class CallToolResultDto {
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'Text, image, audio, resource links, embedded resources' })
  content: Record<string, unknown>[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'The result as data, matching the outputSchema when the tool declares one' })
  structuredContent?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'True when the tool reported an error of its own (its message is in content); the HTTP status is still 200' })
  isError?: boolean;
}
