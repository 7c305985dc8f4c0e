import { All, Controller, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpHttpService } from './mcp-http.service.js';

/**
 * The Streamable HTTP endpoint: POST for messages, GET for a session's stream, DELETE to end a
 * session. `/mcp/<secret>` serves clients that can only be given a URL, not a header.
 */
@Controller()
export class McpController {
  constructor(private readonly http: McpHttpService) {}

  @All(['mcp', 'mcp/:secret'])
  handle(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.http.handle(request, reply);
  }
}
