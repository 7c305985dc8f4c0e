import { Controller, Delete, Get, HttpCode, Param, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { ApiTag, NotFoundError, UuidParamPipe, type UserInfo } from '@app/common';
import { ConnectionListDto } from '../identity/connections/connection-view.dto.js';
import { ConnectionsService } from '../identity/connections/connections.service.js';
import { AdminOnly, CurrentCaller } from '../identity/rest/decorators.js';
import { UserDataService } from '../user-data/user-data.service.js';
import { AdminUserDetailDto, AdminUserDto, AdminUserPageDto, UserSearchQueryDto } from './admin.dto.js';
import { AdminUsers } from './admin-users.service.js';

/** Users, for admins. */
@ApiTag('admin')
@Controller('admin')
@AdminOnly()
export class AdminController {
  constructor(
    private readonly users: AdminUsers,
    private readonly connections: ConnectionsService,
    private readonly userData: UserDataService,
  ) {}

  @Get('users')
  @ApiOperation({ summary: 'List users, oldest first; q matches part of an e-mail, name or subject', operationId: 'adminUsers_search' })
  @ApiOkResponse({ type: AdminUserPageDto })
  search(@Query() query: UserSearchQueryDto) {
    return this.users.search(query.q, query.limit, query.cursor);
  }

  @Get('users/:id')
  @ApiOperation({ summary: 'Read a user, with how many items each lib holds for them', operationId: 'adminUsers_get' })
  @ApiOkResponse({ type: AdminUserDetailDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  detail(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string) {
    return this.users.detail(admin, id);
  }

  @Post('users/:id/disable')
  @HttpCode(200)
  @ApiOperation({
    summary: "Disable a user's account",
    description: "The user's JWTs and MCP secrets are refused on `/mcp` and `/api` from now on.",
    operationId: 'adminUsers_disable',
  })
  @ApiOkResponse({ type: AdminUserDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  @ApiConflictResponse({ description: 'An admin cannot disable their own account' })
  disable(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string) {
    return this.users.setDisabled(admin, id, true);
  }

  @Post('users/:id/enable')
  @HttpCode(200)
  @ApiOperation({ summary: "Enable a disabled user's account again", operationId: 'adminUsers_enable' })
  @ApiOkResponse({ type: AdminUserDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  enable(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string) {
    return this.users.setDisabled(admin, id, false);
  }

  @Delete('users/:id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Erase a user and all their data',
    description: "Every lib's data of the user, erased (the audit trail keeps who it was).",
    operationId: 'adminUsers_erase',
  })
  @ApiNoContentResponse({ description: 'Erased' })
  @ApiNotFoundResponse({ description: 'No such user' })
  erase(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string) {
    return this.users.erase(admin, id);
  }

  @Get('users/:id/export')
  @ApiOperation({ summary: 'Download everything the server holds for a user, as their own export', operationId: 'adminUsers_export' })
  @ApiProduces('application/json')
  @ApiOkResponse({ description: 'The document `GET /api/me/export` gives the user' })
  @ApiNotFoundResponse({ description: 'No such user' })
  async export(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string): Promise<StreamableFile> {
    const userId = await this.users.audited(admin, id, 'user.export');
    return new StreamableFile(await this.userData.exportStream(userId), {
      type: 'application/json',
      disposition: `attachment; filename="mirobody-export-${userId}.json"`,
    });
  }

  @Get('users/:id/connections')
  @ApiOperation({ summary: "List a user's connected OAuth clients, revoked ones included", operationId: 'adminUsers_connections' })
  @ApiOkResponse({ type: ConnectionListDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  async userConnections(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string) {
    await this.users.audited(admin, id, 'connections.list');
    return { connections: await this.connections.list(id) };
  }

  @Delete('users/:id/connections/:connectionId')
  @HttpCode(204)
  @ApiOperation({ summary: "Revoke one of a user's connected OAuth clients: its tokens stop working at once", operationId: 'adminUsers_revokeConnection' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiNotFoundResponse({ description: 'No such user, or no such connection of theirs' })
  async revokeConnection(
    @CurrentCaller() admin: UserInfo,
    @Param('id', UuidParamPipe) id: string,
    @Param('connectionId', UuidParamPipe) connectionId: string,
  ): Promise<void> {
    await this.users.audited(admin, id, 'connection.revoke', { connectionId });
    if (!(await this.connections.revoke(id, connectionId))) throw new NotFoundError('No such connection');
  }
}
