import { BadRequestException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import { AGENT_NAME_PATTERN, AGENT_NAME_RULE } from '../visibility/tool-visibility.js';

/** `?agent=NAME` on `/mcp`: the agent a credential that names none speaks for (or an anonymous caller). */
export function requestedAgent(request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.agent;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestException('Query parameter "agent" was given more than once');
  if (!AGENT_NAME_PATTERN.test(value)) throw new BadRequestException(`Query parameter "agent" must be ${AGENT_NAME_RULE}; got "${value.slice(0, 80)}"`);
  return value;
}
