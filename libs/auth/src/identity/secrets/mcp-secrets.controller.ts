import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, NotFoundError, PageQueryDto, type UserInfo } from '@app/common';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../../auth.options.js';
import { Authenticated, CurrentCaller } from '../rest/decorators.js';
import { CreatedSecretDto, SecretPageDto } from './secret-views.dto.js';
import { McpSecretsService } from './mcp-secrets.service.js';
import { NewSecretDto } from './new-secret.dto.js';

/**
 * A user's personal MCP secrets. Only a JWT may manage them, so a leaked secret cannot mint
 * more secrets nor hide itself by revoking the others.
 */
@ApiTag('mcp-secrets')
@Controller('api/mcp-secrets')
@Authenticated({ jwtOnly: true })
export class McpSecretsController {
  constructor(
    private readonly secrets: McpSecretsService,
    @Inject(AUTH_OPTIONS) private readonly options: AuthModuleOptions,
  ) {}

  /** The secret is in this answer and nowhere else, ever: no cache on the way may keep a copy. */
  @Post()
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'Create an MCP secret; the answer is the only place it appears' })
  @ApiCreatedResponse({ type: CreatedSecretDto })
  async create(@CurrentCaller() caller: UserInfo, @Body() body: NewSecretDto): Promise<CreatedSecretDto> {
    const { id, secret } = await this.secrets.create(caller.userId, {
      label: body.label,
      ...(body.agent ? { agent: body.agent } : {}),
      ...(body.expiresAt ? { expiresAt: body.expiresAt } : {}),
    });
    return { id, secret, url: `${this.options.publicBaseUrl}/mcp/${secret}` };
  }

  @Get()
  @ApiOperation({ summary: 'List your MCP secrets, newest first, without the secrets themselves' })
  @ApiOkResponse({ type: SecretPageDto })
  list(@CurrentCaller() caller: UserInfo, @Query() query: PageQueryDto): Promise<SecretPageDto> {
    return this.secrets.list(caller.userId, query.limit, query.cursor);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke one of your MCP secrets' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiNotFoundResponse({ description: 'No such live secret of the caller' })
  async revoke(@CurrentCaller() caller: UserInfo, @Param('id') id: string): Promise<void> {
    if (!(await this.secrets.revoke(caller.userId, id))) throw new NotFoundError('No such MCP secret');
  }
}
