import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, PageQueryDto } from '@app/common';
import { AdminOnly } from '@app/auth';
import { AdminOAuthClientPageDto } from './known-client.dto.js';
import { KnownClients } from './known-clients.service.js';

/** The built-in authorization server's clients, for admins; with `OAUTH_MODE=external` the route does not exist. */
@ApiTag('admin')
@Controller('admin/oauth-clients')
@AdminOnly()
export class AdminOAuthClientsController {
  constructor(private readonly clients: KnownClients) {}

  @Get()
  @ApiOperation({
    summary: 'List the OAuth clients the built-in authorization server knows, newest first',
    description: 'Registered clients (DCR) until their registration lapses, and metadata-document clients (CIMD) from their first connection on.',
  })
  @ApiOkResponse({ type: AdminOAuthClientPageDto })
  list(@Query() query: PageQueryDto): Promise<AdminOAuthClientPageDto> {
    return this.clients.list(query.limit, query.cursor);
  }
}
