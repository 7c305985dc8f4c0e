import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, PageQueryDto, UuidParamPipe, type UserInfo } from '@app/common';
import { AdminOnly, CurrentCaller } from '../identity/rest/decorators.js';
import { AdminMcpSecretPageDto } from './admin-secrets.dto.js';
import { AdminSecrets } from './admin-secrets.service.js';

/** A user's personal MCP secrets, for admins: their metadata, and revoking one; both on the audit trail. */
@ApiTag('admin')
@Controller('admin/users/:id/mcp-secrets')
@AdminOnly()
export class AdminSecretsController {
  constructor(private readonly secrets: AdminSecrets) {}

  @Get()
  @ApiOperation({ summary: "List a user's MCP secrets, newest first, revoked ones included", operationId: 'adminUsers_mcpSecrets' })
  @ApiOkResponse({ type: AdminMcpSecretPageDto, description: 'Metadata only: never a secret nor its hash' })
  @ApiNotFoundResponse({ description: 'No such user' })
  list(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string, @Query() query: PageQueryDto): Promise<AdminMcpSecretPageDto> {
    return this.secrets.list(admin, id, query.limit, query.cursor);
  }

  @Delete(':secretId')
  @HttpCode(204)
  @ApiOperation({ summary: "Revoke one of a user's MCP secrets: it is refused from the next request on", operationId: 'adminUsers_revokeMcpSecret' })
  @ApiNoContentResponse({ description: 'Revoked (or already revoked)' })
  @ApiNotFoundResponse({ description: 'No such user, or no such secret of theirs' })
  revoke(@CurrentCaller() admin: UserInfo, @Param('id', UuidParamPipe) id: string, @Param('secretId', UuidParamPipe) secretId: string): Promise<void> {
    return this.secrets.revoke(admin, id, secretId);
  }
}
