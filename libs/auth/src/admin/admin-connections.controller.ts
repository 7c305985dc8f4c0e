import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag } from '@app/common';
import { AdminOnly } from '../identity/rest/decorators.js';
import { AdminConnectionPageDto, ConnectionQueryDto } from './admin-connections.dto.js';
import { AdminConnections } from './admin-connections.service.js';

/** Every user's connected OAuth clients, for admins; one is revoked at `DELETE /admin/users/:id/connections/:connectionId`. */
@ApiTag('admin')
@Controller('admin/connections')
@AdminOnly()
export class AdminConnectionsController {
  constructor(private readonly connections: AdminConnections) {}

  @Get()
  @ApiOperation({
    summary: "List every user's connected OAuth clients, newest first",
    description:
      'The grants of the built-in authorization server (`OAUTH_MODE=builtin`): none when it is off. Revoked ones included unless `active` says otherwise.',
  })
  @ApiOkResponse({ type: AdminConnectionPageDto })
  list(@Query() { userId, clientId, active, limit, cursor }: ConnectionQueryDto): Promise<AdminConnectionPageDto> {
    return this.connections.list({ userId, clientId, active }, limit, cursor);
  }
}
