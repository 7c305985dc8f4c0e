import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { ApiTag, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import {
  CircleDto,
  CircleListDto,
  CircleNameDto,
  InviteDto,
  IssuedInvitationDto,
  MemberDto,
  MemberListDto,
  MemberRoleDto,
  MyMembershipDto,
} from '../dto/circle.dto.js';
import { CareCirclesService } from './care-circles.service.js';

/** Care circles: a circle the caller is not an accepted member of answers 404, exactly like a missing one. */
@ApiTag('care-circles')
@Controller('api')
@Authenticated()
@ApiNotFoundResponse({ description: 'No such circle or member, or not one of yours' })
export class CareCirclesController {
  constructor(private readonly circles: CareCirclesService) {}

  @Post('circles')
  @ApiOperation({ summary: 'Create a care circle, with you as its owner' })
  @ApiCreatedResponse({ type: CircleDto, description: 'The circle, with the caller as its owner' })
  create(@CurrentCaller() caller: UserInfo, @Body() body: CircleNameDto): Promise<CircleDto> {
    return this.circles.create(caller.userId, body.name);
  }

  @Get('circles')
  @ApiOperation({ summary: 'List the circles you are a member of' })
  @ApiOkResponse({ type: CircleListDto, description: 'The circles the caller is an accepted member of' })
  async list(@CurrentCaller() caller: UserInfo): Promise<CircleListDto> {
    return { circles: await this.circles.list(caller.userId) };
  }

  @Patch('circles/:circleId')
  @ApiOperation({ summary: 'Rename a circle' })
  @ApiOkResponse({ type: CircleDto })
  @ApiForbiddenResponse({ description: 'Only owners and maintainers rename a circle' })
  rename(@CurrentCaller() caller: UserInfo, @Param('circleId') circleId: string, @Body() body: CircleNameDto): Promise<CircleDto> {
    return this.circles.rename(caller.userId, circleId, body.name);
  }

  @Delete('circles/:circleId')
  @ApiOperation({ summary: 'Delete a circle' })
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiForbiddenResponse({ description: 'Only owners delete a circle' })
  async remove(@CurrentCaller() caller: UserInfo, @Param('circleId') circleId: string): Promise<void> {
    await this.circles.remove(caller.userId, circleId);
  }

  @Post('circles/:circleId/invitations')
  @ApiOperation({ summary: 'Invite someone to a circle by e-mail' })
  @ApiCreatedResponse({ type: IssuedInvitationDto, description: 'The token is in this answer only; pass it to the invited person' })
  @ApiForbiddenResponse({ description: 'Only owners and maintainers invite, and at most to their own role' })
  @ApiConflictResponse({ description: 'That e-mail is already in the circle or invited' })
  invite(@CurrentCaller() caller: UserInfo, @Param('circleId') circleId: string, @Body() body: InviteDto): Promise<IssuedInvitationDto> {
    return this.circles.invite(caller.userId, circleId, body.email, body.role ?? 'member');
  }

  @Get('circles/:circleId/members')
  @ApiOperation({ summary: "List a circle's members", operationId: 'careCircles_listMembers' })
  @ApiOkResponse({ type: MemberListDto })
  async members(@CurrentCaller() caller: UserInfo, @Param('circleId') circleId: string): Promise<MemberListDto> {
    return { members: await this.circles.members(caller.userId, circleId) };
  }

  @Patch('circles/:circleId/members/me')
  @ApiOperation({ summary: 'Set your nickname or health access in a circle, or withdraw', operationId: 'careCircles_updateMyMembership' })
  @ApiOkResponse({ type: MemberDto, description: 'Your own nickname, health access, or withdrawal' })
  @ApiConflictResponse({ description: "The last owner cannot withdraw without handing over; a nickname cannot be another member's e-mail, name or nickname" })
  updateMine(@CurrentCaller() caller: UserInfo, @Param('circleId') circleId: string, @Body() body: MyMembershipDto): Promise<MemberDto> {
    return this.circles.updateMine(caller.userId, circleId, body);
  }

  @Post('circles/:circleId/leave')
  @ApiOperation({ summary: 'Leave a circle' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Left; the last person leaving deletes the circle' })
  @ApiConflictResponse({ description: 'The last owner cannot leave without handing over' })
  async leave(@CurrentCaller() caller: UserInfo, @Param('circleId') circleId: string): Promise<void> {
    await this.circles.leave(caller.userId, circleId);
  }

  @Patch('circles/:circleId/members/:memberId')
  @ApiOperation({ summary: "Change a member's role" })
  @ApiOkResponse({ type: MemberDto })
  @ApiForbiddenResponse({ description: 'Only owners change roles, never their own' })
  changeRole(
    @CurrentCaller() caller: UserInfo,
    @Param('circleId') circleId: string,
    @Param('memberId') memberId: string,
    @Body() body: MemberRoleDto,
  ): Promise<MemberDto> {
    return this.circles.changeRole(caller.userId, circleId, memberId, body.role);
  }

  @Delete('circles/:circleId/members/:memberId')
  @ApiOperation({ summary: 'Remove a member from a circle' })
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiForbiddenResponse({ description: 'Managers remove members; only owners remove maintainers or owners' })
  async removeMember(@CurrentCaller() caller: UserInfo, @Param('circleId') circleId: string, @Param('memberId') memberId: string): Promise<void> {
    await this.circles.removeMember(caller.userId, circleId, memberId);
  }
}
