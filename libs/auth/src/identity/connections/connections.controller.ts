import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, NotFoundError, UuidParamPipe, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '../rest/decorators.js';
import { ConnectionListDto } from './connection-view.dto.js';
import { ConnectionsService } from './connections.service.js';

/**
 * The MCP clients a user connected through the built-in authorization server. Only a JWT manages
 * them, as MCP secrets: a connected client's own token cannot hide itself by revoking the others.
 */
@ApiTag('connections')
@Controller('api/me/connections')
@Authenticated({ jwtOnly: true })
export class ConnectionsController {
  constructor(private readonly connections: ConnectionsService) {}

  @Get()
  @ApiOperation({ summary: 'List the clients you connected, newest first, revoked ones included' })
  @ApiOkResponse({ type: ConnectionListDto })
  async list(@CurrentCaller() caller: UserInfo): Promise<ConnectionListDto> {
    return { connections: await this.connections.list(caller.userId) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a connected client: its tokens stop working at once' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiNotFoundResponse({ description: 'No such connection of the caller' })
  async revoke(@CurrentCaller() caller: UserInfo, @Param('id', UuidParamPipe) id: string): Promise<void> {
    if (!(await this.connections.revoke(caller.userId, id))) throw new NotFoundError('No such connection');
  }
}
