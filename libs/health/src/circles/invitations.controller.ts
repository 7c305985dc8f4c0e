import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiForbiddenResponse, ApiGoneResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag, PageQueryDto, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { InvitationAnswerDto, InvitationOutcomeDto, PendingInvitationPageDto } from '../dto/circle.dto.js';
import type { CircleView } from './care-circles.service.js';
import { InvitationsService, NO_LONGER_VALID } from './invitations.service.js';

const UNVERIFIED = 'Your credentials carry no verified e-mail address (answer with the token instead)';
const SELF = 'Nobody answers an invitation they issued, nor one whose sender is disabled (until an admin enables the sender again)';
const VOID = `"${NO_LONGER_VALID}": its sender's account was erased`;

/**
 * Answering a care-circle invitation, as the invited person: with the invitation's token, or signed in with the
 * verified e-mail address it was sent to. An invitation to another address answers 404, exactly like a missing one.
 */
@ApiTag('care-circles')
@Controller('api/invitations')
@Authenticated()
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Get()
  @ApiOperation({ summary: 'List the open invitations to your verified e-mail address' })
  @ApiOkResponse({ type: PendingInvitationPageDto, description: 'Open invitations to your verified e-mail address, newest first' })
  @ApiForbiddenResponse({ description: UNVERIFIED })
  list(@CurrentCaller() caller: UserInfo, @Query() page: PageQueryDto): Promise<PendingInvitationPageDto> {
    return this.invitations.pendingFor(caller, page.limit, page.cursor);
  }

  @Post('accept')
  @ApiOperation({ summary: 'Accept an invitation with its token' })
  @HttpCode(200)
  @ApiOkResponse({ type: InvitationOutcomeDto })
  @ApiNotFoundResponse({ description: 'No invitation has this token' })
  @ApiConflictResponse({ description: 'Used, expired, or already a member' })
  @ApiForbiddenResponse({ description: SELF })
  @ApiGoneResponse({ description: VOID })
  async acceptByToken(@CurrentCaller() caller: UserInfo, @Body() body: InvitationAnswerDto): Promise<InvitationOutcomeDto> {
    return accepted(await this.invitations.answerByToken(caller.userId, body.token, 'accepted'));
  }

  @Post('decline')
  @ApiOperation({ summary: 'Decline an invitation with its token' })
  @HttpCode(200)
  @ApiOkResponse({ type: InvitationOutcomeDto })
  @ApiNotFoundResponse({ description: 'No invitation has this token' })
  @ApiConflictResponse({ description: 'Used or expired' })
  @ApiForbiddenResponse({ description: SELF })
  @ApiGoneResponse({ description: VOID })
  async declineByToken(@CurrentCaller() caller: UserInfo, @Body() body: InvitationAnswerDto): Promise<InvitationOutcomeDto> {
    await this.invitations.answerByToken(caller.userId, body.token, 'declined');
    return { status: 'declined' };
  }

  @Post(':invitationId/accept')
  @ApiOperation({ summary: 'Accept an invitation to your verified e-mail address' })
  @HttpCode(200)
  @ApiOkResponse({ type: InvitationOutcomeDto })
  @ApiNotFoundResponse({ description: 'No such invitation to your verified e-mail address' })
  @ApiConflictResponse({ description: 'Used, expired, or already a member' })
  @ApiForbiddenResponse({ description: `${UNVERIFIED}, or: ${SELF}` })
  @ApiGoneResponse({ description: VOID })
  async accept(@CurrentCaller() caller: UserInfo, @Param('invitationId') invitationId: string): Promise<InvitationOutcomeDto> {
    return accepted(await this.invitations.answerById(caller, invitationId, 'accepted'));
  }

  @Post(':invitationId/decline')
  @ApiOperation({ summary: 'Decline an invitation to your verified e-mail address' })
  @HttpCode(200)
  @ApiOkResponse({ type: InvitationOutcomeDto })
  @ApiNotFoundResponse({ description: 'No such invitation to your verified e-mail address' })
  @ApiConflictResponse({ description: 'Used or expired' })
  @ApiForbiddenResponse({ description: `${UNVERIFIED}, or: ${SELF}` })
  @ApiGoneResponse({ description: VOID })
  async decline(@CurrentCaller() caller: UserInfo, @Param('invitationId') invitationId: string): Promise<InvitationOutcomeDto> {
    await this.invitations.answerById(caller, invitationId, 'declined');
    return { status: 'declined' };
  }
}

/** An accepted invitation answers with the circle joined. */
const accepted = (circle: CircleView | null): InvitationOutcomeDto => ({ status: 'accepted', ...(circle ? { circle } : {}) });
