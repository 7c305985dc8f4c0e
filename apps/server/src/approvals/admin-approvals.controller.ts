import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, UuidParamPipe, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { McpApprovals } from '@app/mcp';
import { ApprovalPageDto, ApprovalViewDto, ApproveDto, DeclineDto, ListApprovalsQueryDto } from './approval.dto.js';

const APPROVERS_ONLY = 'For admins and holders of APPROVALS_APPROVER_ROLE alone';

/**
 * The approvers' queue: calls of tools that wait for an approver. Admins and holders of the
 * configured approver role read and decide them (`McpApprovals` checks, so that the role, which
 * is no admin's, is enough); nobody decides their own. Decisions are on the audit trail.
 */
@ApiTag('admin')
@Controller('admin/approvals')
@Authenticated()
export class AdminApprovalsController {
  constructor(private readonly approvals: McpApprovals) {}

  @Get()
  @ApiOperation({
    summary: 'List approval requests, newest first',
    description: 'With `status=pending`, the queue; the arguments are shown while a request waits.',
  })
  @ApiOkResponse({ type: ApprovalPageDto })
  @ApiForbiddenResponse({ description: APPROVERS_ONLY })
  async list(@CurrentCaller() approver: UserInfo, @Query() query: ListApprovalsQueryDto): Promise<ApprovalPageDto> {
    const { status, userId, tool } = query;
    const filter = { ...(status ? { status } : {}), ...(userId ? { userId } : {}), ...(tool ? { tool } : {}) };
    const page = await this.approvals.list(approver, filter, query.limit, query.cursor);
    return { items: page.items.map(ApprovalViewDto.of), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read one approval request' })
  @ApiOkResponse({ type: ApprovalViewDto })
  @ApiForbiddenResponse({ description: APPROVERS_ONLY })
  @ApiNotFoundResponse({ description: 'No such request' })
  async find(@CurrentCaller() approver: UserInfo, @Param('id', UuidParamPipe) id: string): Promise<ApprovalViewDto> {
    return ApprovalViewDto.of(await this.approvals.find(approver, id));
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approve a pending request',
    description: 'The call then runs once, as its caller (whose account and credential are checked again first); on the audit trail as approval.approve.',
  })
  @ApiOkResponse({ type: ApprovalViewDto, description: 'The request, approved' })
  @ApiForbiddenResponse({ description: `${APPROVERS_ONLY}; and never for your own request` })
  @ApiNotFoundResponse({ description: 'No such request' })
  @ApiConflictResponse({ description: 'The request is no longer pending (decided, expired, withdrawn)' })
  async approve(@CurrentCaller() approver: UserInfo, @Param('id', UuidParamPipe) id: string, @Body() body: ApproveDto): Promise<ApprovalViewDto> {
    return ApprovalViewDto.of(await this.approvals.decide(approver, id, 'approved', body.reason ?? null));
  }

  @Post(':id/decline')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Decline a pending request',
    description: 'The call does not run; its caller receives the reason as a tool error. On the audit trail as approval.decline.',
  })
  @ApiOkResponse({ type: ApprovalViewDto, description: 'The request, declined' })
  @ApiForbiddenResponse({ description: `${APPROVERS_ONLY}; and never for your own request` })
  @ApiNotFoundResponse({ description: 'No such request' })
  @ApiConflictResponse({ description: 'The request is no longer pending (decided, expired, withdrawn)' })
  async decline(@CurrentCaller() approver: UserInfo, @Param('id', UuidParamPipe) id: string, @Body() body: DeclineDto): Promise<ApprovalViewDto> {
    return ApprovalViewDto.of(await this.approvals.decide(approver, id, 'declined', body.reason));
  }
}
