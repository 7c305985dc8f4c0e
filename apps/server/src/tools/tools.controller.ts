import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiTag, ForbiddenError, InvalidInputError, missingScopes, NotFoundError, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { insufficientScope, McpRegistry, type ArgumentProblem } from '@app/mcp';
import { CallToolDto, CallToolResultDto, ToolListDto, ToolsQueryDto, ToolViewDto } from './tool.dto.js';

/** The agent whose lists apply: the one asked for, unless the credential names its own (as on `/mcp`, it is not the request's to change). */
function agentFor(caller: UserInfo, requested: string | undefined): string | undefined {
  if (caller.agent !== undefined && requested !== undefined && requested !== caller.agent)
    throw new ForbiddenError(`Your credential is for agent "${caller.agent}": it sees that agent's tools, not "${requested}"'s`);
  return caller.agent ?? requested;
}

/** `fields` of a 400: each argument by its path in the body (`arguments.text`; `arguments` for the whole). */
function argumentFields(problems: readonly ArgumentProblem[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const { argument, sentence } of problems) fields[argument ? `arguments.${argument}` : 'arguments'] ??= sentence;
  return fields;
}

/**
 * The tools the caller may use, as an MCP client sees them, and a way to call one (a console's
 * "try it"): the same registry, agent lists, scopes, argument checks and access log as `/mcp`.
 */
@ApiTag('tools')
@Controller('api/tools')
@Authenticated()
export class ToolsController {
  constructor(private readonly registry: McpRegistry) {}

  @Get()
  @ApiOperation({
    summary: 'List the tools you may call, then the disabled ones',
    description: "What tools/list shows you (the agent's lists, your token's scopes), with each tool's scopes, task support and origin.",
  })
  @ApiOkResponse({ type: ToolListDto })
  @ApiForbiddenResponse({ description: 'Your credential is for another agent' })
  list(@CurrentCaller() caller: UserInfo, @Query() query: ToolsQueryDto): ToolListDto {
    const agent = agentFor(caller, query.agent);
    return { agent: agent ?? null, tools: this.registry.toolSummaries(agent, caller.scopes).map(ToolViewDto.of) };
  }

  @Post(':name/call')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Call a tool as yourself',
    description:
      "Runs the tool as tools/call would for you, and answers its CallToolResult; a tool's own error is still 200, with isError. A tool that runs only as a task, or asks the client for input, needs an MCP client.",
  })
  @ApiOkResponse({ type: CallToolResultDto })
  @ApiBadRequestResponse({ description: 'Arguments its schema refuses (`fields` names each), or a tool that only an MCP client can call' })
  @ApiForbiddenResponse({ description: "Your token lacks the tool's scopes, or your credential is for another agent" })
  @ApiNotFoundResponse({ description: 'No such tool, or one your agent does not see, or a disabled one' })
  async call(
    @CurrentCaller() caller: UserInfo,
    @Param('name') name: string,
    @Body() body: CallToolDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CallToolResultDto> {
    const agent = agentFor(caller, body.agent);
    const tool = this.registry.getTool(name, agent);
    if (!tool) throw new NotFoundError(this.registry.isDisabledTool(name, agent) ? `Tool "${name}" is disabled on this server` : `No tool named "${name}"`);
    if (tool.descriptor.options.task === 'required') {
      throw new InvalidInputError(`Tool "${name}" runs only as a task: call it over MCP, with the io.modelcontextprotocol/tasks extension`, {
        name: 'runs only as a task',
      });
    }
    const missing = missingScopes(caller, tool.descriptor.scopes);
    if (missing.length) throw new ForbiddenError(insufficientScope(name, missing));
    const problems = tool.validate(body.arguments);
    if (problems.length)
      throw new InvalidInputError(`Invalid arguments for tool "${name}": ${problems.map((problem) => problem.sentence).join('; ')}`, argumentFields(problems));
    // A client that goes away stops the tool, as a cancellation would on /mcp.
    const abandoned = new AbortController();
    reply.raw.once('close', () => reply.raw.writableEnded || abandoned.abort(new Error('The client went away')));
    const result = await this.registry.call(name, body.arguments, caller, { ...(agent ? { agent } : {}), requestId: request.id, signal: abandoned.signal });
    if ('resultType' in result && result.resultType === 'input_required') {
      throw new InvalidInputError(`Tool "${name}" asks the client for input, which only an MCP client can give: call it over MCP`, { name: 'asks for input' });
    }
    return result as CallToolResultDto;
  }
}
