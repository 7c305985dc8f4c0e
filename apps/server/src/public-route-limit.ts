import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MCP_RATE_LIMIT, type McpRateLimit } from '@app/mcp';

/**
 * An `onRequest` hook for the Fastify routes the app adds outside Nest's controllers (the OpenAPI
 * document, Swagger UI, the console's files): they count against the caller's budget like every
 * other route anyone may call (the REST ones through `@Public()`), 429 with `Retry-After` past it.
 */
export function countedAgainstBudget(app: NestFastifyApplication): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const limiter = app.get<McpRateLimit>(MCP_RATE_LIMIT, { strict: false });
  return async (request, reply) => {
    const verdict = await limiter.admit(request);
    if (verdict.allowed) return;
    await reply
      .code(429)
      .header('retry-after', String(verdict.retryAfterSeconds))
      .send({ statusCode: 429, message: `Too many requests: try again in ${verdict.retryAfterSeconds} s` });
  };
}
