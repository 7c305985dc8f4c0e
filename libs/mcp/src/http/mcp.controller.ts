import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { RateLimited } from '@app/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpHttpService } from './mcp-http.service.js';

/**
 * The Streamable HTTP endpoint: POST for messages, GET for a session's stream, DELETE to end a
 * session. `/mcp/<secret>` serves clients that can only be given a URL, not a header.
 */
// JSON-RPC, described by MCP itself (tools/list), not by the REST API's OpenAPI document.
@ApiExcludeController()
@Controller()
@RateLimited()
export class McpController {
  constructor(private readonly http: McpHttpService) {}

  @All(['mcp', 'mcp/:secret'])
  handle(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.http.handle(request, reply);
  }
}
