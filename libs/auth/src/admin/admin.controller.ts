import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DEFAULT_PAGE_SIZE, PageQueryDto, UuidParamPipe, type UserInfo } from '@app/common';
import { AdminOnly, CurrentCaller } from '../rest/decorators.js';
import { AdminUserDetailDto, AdminUserDto, AdminUserPageDto, AuditPageDto, UserSearchQueryDto } from './admin.dto.js';
import { AdminAudit } from './admin-audit.service.js';
import { AdminUsers } from './admin-users.service.js';

/** Users and the audit trail, for admins. */
@ApiTags('admin')
@Controller('admin')
@AdminOnly()
export class AdminController {
  constructor(
    private readonly users: AdminUsers,
    private readonly audit: AdminAudit,
  ) {}

  @Get('users')
  @ApiOkResponse({ type: AdminUserPageDto })
  search(@Query() query: UserSearchQueryDto) {
    return this.users.search(query.q, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
  }

  @Get('users/:id')
  @ApiOkResponse({ type: AdminUserDetailDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  detail(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string) {
    return this.users.detail(admin, id);
  }

  /** The user's JWTs and MCP secrets are refused on `/mcp` and `/api` from now on. */
  @Post('users/:id/disable')
  @HttpCode(200)
  @ApiOkResponse({ type: AdminUserDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  @ApiConflictResponse({ description: 'An admin cannot disable their own account' })
  disable(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string) {
    return this.users.setDisabled(admin, id, true);
  }

  @Post('users/:id/enable')
  @HttpCode(200)
  @ApiOkResponse({ type: AdminUserDto })
  @ApiNotFoundResponse({ description: 'No such user' })
  enable(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string) {
    return this.users.setDisabled(admin, id, false);
  }

  /** Every lib's data of the user, erased (the audit trail keeps who it was). */
  @Delete('users/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Erased' })
  @ApiNotFoundResponse({ description: 'No such user' })
  erase(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string) {
    return this.users.erase(admin, id);
  }

  @Get('audit')
  @ApiOkResponse({ type: AuditPageDto })
  auditTrail(@Query() query: PageQueryDto) {
    return this.audit.list(query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
  }
}
