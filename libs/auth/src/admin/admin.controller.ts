import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, NotFoundError, PageQueryDto, UuidParamPipe, type UserInfo } from '@app/common';
import { ConnectionsService } from '../identity/connections/connections.service.js';
import { AdminOnly, CurrentCaller } from '../identity/rest/decorators.js';
import { AdminUserDetailDto, AdminUserDto, AdminUserPageDto, AuditPageDto, UserSearchQueryDto } from './admin.dto.js';
import { AdminAudit } from './admin-audit.service.js';
import { AdminUsers } from './admin-users.service.js';

/** Users and the audit trail, for admins. */
@ApiTag('admin')
@Controller('admin')
@AdminOnly()
export class AdminController {
  constructor(
    private readonly users: AdminUsers,
    private readonly audit: AdminAudit,
    private readonly connections: ConnectionsService,
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

  @Get('users/:id/connections')
  @ApiOperation({ summary: "List a user's connected OAuth clients, revoked ones included", operationId: 'adminUsers_connections' })
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

  @Get('audit')
  @ApiOperation({ summary: 'List the audit trail, newest first', operationId: 'adminAudit_list' })
  @ApiOkResponse({ type: AuditPageDto })
  auditTrail(@Query() query: PageQueryDto) {
    return this.audit.list(query.limit, query.cursor);
  }
}
