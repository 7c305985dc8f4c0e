import { BadRequestException, Controller, Get, Query, UseGuards } from '@nestjs/common';
import { AdminGuard } from '@app/auth';
import { CATALOG_FORMATS, McpRegistry, type CatalogFormat, type ToolCatalog } from '@app/mcp';

const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function single(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestException(`Query parameter "${name}" was given more than once`);
  return value;
}

/** The tool catalog as an agent sees it, for administrators wiring up an LLM or checking a deployment. */
@Controller('admin/tools')
export class AdminToolsController {
  constructor(private readonly registry: McpRegistry) {}

  /** `?format=mcp|openai|openai-responses|gemini` (default `mcp`), `?agent=NAME` to apply that agent's lists. */
  @Get()
  @UseGuards(AdminGuard)
  catalog(@Query('format') rawFormat: unknown, @Query('agent') rawAgent: unknown): ToolCatalog {
    const format = single('format', rawFormat) ?? 'mcp';
    if (!CATALOG_FORMATS.includes(format as CatalogFormat)) {
      throw new BadRequestException(`Query parameter "format" must be one of ${CATALOG_FORMATS.join(', ')}; got "${format.slice(0, 40)}"`);
    }
    const agent = single('agent', rawAgent);
    if (agent !== undefined && !AGENT_NAME.test(agent)) {
      throw new BadRequestException(`Query parameter "agent" must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
    }
    return this.registry.catalogFor(format as CatalogFormat, agent);
  }
}
