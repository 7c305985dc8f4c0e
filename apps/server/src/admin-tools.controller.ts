import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, Matches } from 'class-validator';
import { ApiTag, Omittable } from '@app/common';
import { AdminOnly } from '@app/auth';
import { AGENT_NAME_PATTERN, AGENT_NAME_RULE, CATALOG_FORMATS, McpRegistry, type CatalogFormat, type ToolCatalog } from '@app/mcp';

export class ToolCatalogQueryDto {
  @ApiPropertyOptional({
    enum: CATALOG_FORMATS,
    default: 'mcp',
    description: 'mcp: as tools/list; openai: Chat Completions tools; openai-responses: Responses API tools; gemini: functionDeclarations',
  })
  @Omittable()
  @IsIn(CATALOG_FORMATS)
  format?: CatalogFormat;

  @ApiPropertyOptional({
    description: `Apply this agent's ALLOWED_TOOLS_/DISALLOWED_TOOLS_ lists (${AGENT_NAME_RULE}); all tools without it`,
    example: 'cursor',
  })
  @Omittable()
  @Matches(AGENT_NAME_PATTERN, { message: `agent must be ${AGENT_NAME_RULE}` })
  agent?: string;
}

export class ToolCatalogDto implements ToolCatalog {
  @ApiProperty({ enum: CATALOG_FORMATS }) format: CatalogFormat;
  @ApiProperty({ type: String, nullable: true, description: 'The agent whose lists were applied' }) agent: string | null;
  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'Ready to pass to the model API as its tools' }) tools: unknown[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Tool name → "packaged" or the tool-directory file that defined it',
    example: { echo: '/etc/mirobody/tools/echo.js', whoami: 'packaged' },
  })
  origins: Record<string, string>;
}

/** The tool catalog as an agent sees it, for administrators wiring up an LLM or checking a deployment. */
@ApiTag('admin')
@Controller('admin/tools')
export class AdminToolsController {
  constructor(private readonly registry: McpRegistry) {}

  @Get()
  @AdminOnly()
  @ApiOperation({
    summary: 'List the tools an agent sees, in the form a model API takes',
    description: 'The tools an agent sees, in MCP, OpenAI Chat, OpenAI Responses or Gemini form, with their origins.',
  })
  @ApiOkResponse({ type: ToolCatalogDto })
  catalog(@Query() query: ToolCatalogQueryDto): ToolCatalog {
    return this.registry.catalogFor(query.format ?? 'mcp', query.agent);
  }
}
