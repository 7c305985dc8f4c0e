import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, IsUUID, MaxLength } from 'class-validator';
import { Omittable, PageQueryDto } from '@app/common';
import { APPROVAL_STATUSES, RUN_OUTCOMES, type ApprovalStatus, type ApprovalView, type RunOutcome } from '@app/mcp';

/** The most of a reason a decision keeps: a sentence or a ticket's reference, not a document. */
const MAX_REASON_CHARS = 1000;

export class ApprovalRequesterDto {
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
}

export class ApprovalDeciderDto {
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
}

/** An approval request as approvers see it: the arguments only while it waits, then their digest alone. */
export class ApprovalViewDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'The tool the call is for', example: 'delete_file' }) tool: string;
  @ApiProperty({ enum: APPROVAL_STATUSES }) status: ApprovalStatus;
  @ApiProperty({ type: ApprovalRequesterDto, description: 'Who called the tool' }) requestedBy: ApprovalRequesterDto;
  @ApiProperty({ type: String, format: 'date-time' }) requestedAt: Date;
  @ApiProperty({ type: String, format: 'date-time', description: 'When a request still pending expires (APPROVALS_TIMEOUT after it was made)' })
  expiresAt: Date;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The arguments of the call, while it waits (kept encrypted); null once decided',
  })
  arguments: Record<string, unknown> | null;

  @ApiProperty({ description: 'SHA-256 of the arguments as canonical JSON: what a decided request keeps of them', example: 'sha256:9f86d0…' })
  argumentsDigest: string;

  @ApiProperty({ description: 'True when the call waits in a task; false when the caller calls again once it is approved' }) inTask: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decidedAt: Date | null;
  @ApiProperty({ type: ApprovalDeciderDto, nullable: true, description: 'The approver; null while pending, and when the server ended it' })
  decidedBy: ApprovalDeciderDto | null;

  @ApiProperty({ type: String, nullable: true, description: "The approver's reason, or why the server ended it" }) reason: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the approved call ran (or was refused at run time)' })
  ranAt: Date | null;

  @ApiProperty({ enum: RUN_OUTCOMES, nullable: true, description: 'How the approved call ended' }) outcome: RunOutcome | null;
  @ApiProperty({ type: String, nullable: true, description: "A tool error's message, or why the run was refused" }) outcomeMessage: string | null;

  static of(view: ApprovalView): ApprovalViewDto {
    return { ...view };
  }
}

export class ApprovalPageDto {
  @ApiProperty({ type: [ApprovalViewDto], description: 'Newest first' }) items: ApprovalViewDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last' }) nextCursor: string | null;
}

export class ListApprovalsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: APPROVAL_STATUSES, description: 'Only the requests in this status (`pending`: the queue)' })
  @Omittable()
  @IsIn(APPROVAL_STATUSES, { message: `status must be one of ${APPROVAL_STATUSES.join(', ')}` })
  status?: ApprovalStatus;

  @ApiPropertyOptional({ format: 'uuid', description: "Only this user's requests" })
  @Omittable()
  @IsUUID('all', { message: 'userId must be a UUID' })
  userId?: string;

  @ApiPropertyOptional({ description: 'Only the requests of this tool', example: 'delete_file' })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  tool?: string;
}

export class ApproveDto {
  @ApiPropertyOptional({ maxLength: MAX_REASON_CHARS, description: 'Why it is allowed (kept on the request and the audit trail)' })
  @Omittable()
  @IsString()
  @MaxLength(MAX_REASON_CHARS)
  reason?: string;
}

export class DeclineDto {
  @ApiProperty({ maxLength: MAX_REASON_CHARS, description: 'Why it is declined: the caller receives it as the tool error' })
  @IsString()
  @IsNotEmpty({ message: 'reason must say why the call is declined' })
  @MaxLength(MAX_REASON_CHARS)
  reason: string;
}
