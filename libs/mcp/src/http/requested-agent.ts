import { BadRequestException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `?agent=NAME` on `/mcp`: the agent a credential that names none speaks for (or an anonymous caller). */
export function requestedAgent(request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.agent;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestException('Query parameter "agent" was given more than once');
  if (!AGENT_NAME.test(value)) throw new BadRequestException(`Query parameter "agent" must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit; got "${value.slice(0, 80)}"`);
  return value;
}
