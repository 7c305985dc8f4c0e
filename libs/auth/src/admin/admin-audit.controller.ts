import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { ApiTag, type UserInfo } from '@app/common';
import { AdminOnly, CurrentCaller } from '../identity/rest/decorators.js';
import { auditFilterOf, AuditExportQueryDto, AuditPageDto, AuditQueryDto } from './admin-audit.dto.js';
import { AdminAudit } from './admin-audit.service.js';

/** The audit trail, for admins: a page at a time, or all of it as CSV. */
@ApiTag('admin')
@Controller('admin/audit')
@AdminOnly()
export class AdminAuditController {
  constructor(private readonly audit: AdminAudit) {}

  @Get()
  @ApiOperation({
    summary: 'List the audit trail, newest first, optionally filtered',
    description: 'A cursor is the id of the last entry of its page: used with other filters, the list goes on below that entry under the new filters.',
    operationId: 'adminAudit_list',
  })
  @ApiOkResponse({ type: AuditPageDto })
  list(@Query() query: AuditQueryDto) {
    return this.audit.list(auditFilterOf(query), query.limit, query.cursor);
  }

  @Get('export')
  @ApiOperation({
    summary: 'Download the audit trail as CSV, with the same filters as the list',
    description:
      'Newest first, one row per entry under the header `id,at,actorId,actorEmail,action,targetUserId,targetEmail,detail,actorAddress` ' +
      '(RFC 4180, CRLF; `detail` as JSON; a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed ' +
      "with `'` so that a spreadsheet shows it as text). The export itself is recorded (`audit.export`, with its filters).",
    operationId: 'adminAudit_export',
  })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The entries as CSV (`audit.csv`)', schema: { type: 'string' } })
  async export(@CurrentCaller() admin: UserInfo, @Query() query: AuditExportQueryDto): Promise<StreamableFile> {
    const filter = auditFilterOf(query);
    await this.audit.record(admin, 'audit.export', null, { ...filter });
    return new StreamableFile(await this.audit.exportCsv(filter), { type: 'text/csv; charset=utf-8', disposition: 'attachment; filename="audit.csv"' });
  }
}
