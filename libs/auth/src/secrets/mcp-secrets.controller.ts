import { BadRequestException, Body, Controller, Delete, Get, Header, HttpCode, Inject, NotFoundException, Param, Post, UseGuards } from '@nestjs/common';
import type { UserInfo } from '@app/mcp';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../auth.options.js';
import { ApiCaller, JwtAuthGuard } from '../guards/jwt-auth.guard.js';
import { McpSecretsService, type NewSecret, type SecretSummary } from './mcp-secrets.service.js';

const MAX_TEXT = 200;
/** The last instant PostgreSQL and JavaScript both represent without trouble. */
const LATEST_EXPIRY = Date.parse('9999-12-31T23:59:59Z');

/**
 * A user's personal MCP secrets. Only a JWT may manage them, so a leaked secret cannot mint
 * more secrets nor hide itself by revoking the others.
 */
@Controller('api/mcp-secrets')
@UseGuards(JwtAuthGuard)
export class McpSecretsController {
  constructor(
    private readonly secrets: McpSecretsService,
    @Inject(AUTH_OPTIONS) private readonly options: AuthModuleOptions,
  ) {}

  /** The secret is in this answer and nowhere else, ever: no cache on the way may keep a copy. */
  @Post()
  @Header('cache-control', 'no-store')
  async create(@ApiCaller() caller: UserInfo, @Body() body: unknown): Promise<{ id: string; secret: string; url: string }> {
    const { id, secret } = await this.secrets.create(caller.userId, parseNewSecret(body));
    return { id, secret, url: `${this.options.PUBLIC_BASE_URL}/mcp/${secret}` };
  }

  @Get()
  async list(@ApiCaller() caller: UserInfo): Promise<{ secrets: SecretSummary[] }> {
    return { secrets: await this.secrets.list(caller.userId) };
  }

  @Delete(':id')
  @HttpCode(204)
  async revoke(@ApiCaller() caller: UserInfo, @Param('id') id: string): Promise<void> {
    if (!(await this.secrets.revoke(caller.userId, id))) throw new NotFoundException('No such MCP secret');
  }
}

/** `{ label, agent?, expiresAt? }`; anything else is refused with the field named. */
export function parseNewSecret(body: unknown): NewSecret {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestException('Expected a JSON object { label, agent?, expiresAt? }');
  const { label, agent, expiresAt, ...unknown } = body as Record<string, unknown>;
  const extra = Object.keys(unknown);
  if (extra.length) throw new BadRequestException(`Unknown field "${extra[0]}"`);
  if (typeof label !== 'string' || !label.trim() || label.length > MAX_TEXT) throw new BadRequestException(`"label" must be a non-empty string of at most ${MAX_TEXT} characters`);
  if (agent !== undefined && (typeof agent !== 'string' || agent.length > MAX_TEXT)) throw new BadRequestException(`"agent" must be a string of at most ${MAX_TEXT} characters`);
  // PostgreSQL text cannot hold NUL.
  if (label.includes('\u0000')) throw new BadRequestException('"label" must not contain a NUL character');
  if (agent?.includes('\u0000')) throw new BadRequestException('"agent" must not contain a NUL character');
  let expires: Date | undefined;
  if (expiresAt !== undefined) {
    // A date-time with its offset: a bare date or local time would mean different instants on different servers.
    expires = typeof expiresAt === 'string' && /T.*(Z|[+-]\d\d:\d\d)$/.test(expiresAt) ? new Date(expiresAt) : undefined;
    if (!expires || Number.isNaN(expires.getTime())) throw new BadRequestException('"expiresAt" must be an ISO 8601 date-time with offset, e.g. 2030-01-31T00:00:00Z');
    if (expires.getTime() <= Date.now()) throw new BadRequestException('"expiresAt" must be in the future');
    if (expires.getTime() > LATEST_EXPIRY) throw new BadRequestException('"expiresAt" must be before the year 10000');
  }
  return { label: label.trim(), ...(agent ? { agent } : {}), ...(expires ? { expiresAt: expires } : {}) };
}
