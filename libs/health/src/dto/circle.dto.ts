import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsInt, IsNotEmpty, IsString, MaxLength, ValidateIf } from 'class-validator';
import { Omittable } from '@app/common';
import { MEMBER_ROLES, MEMBER_STATUSES, type HealthAccess, type MemberRole, type MemberStatus } from '../entities/circle-member.entity.js';

const trimmed = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

/** `POST /api/circles`, `PATCH /api/circles/:circleId`. */
export class CircleNameDto {
  @ApiProperty({ maxLength: 100, example: 'Family' })
  @trimmed()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;
}

/** `POST /api/circles/:circleId/invitations`. */
export class InviteDto {
  @ApiProperty({ example: 'mum@example.com', description: 'Where the inviter sends the token; only its holder can answer' })
  @trimmed()
  @IsEmail()
  @MaxLength(320)
  email: string;

  @ApiPropertyOptional({ enum: MEMBER_ROLES, default: 'member', description: "At most the inviter's own role" })
  @Omittable()
  @IsIn(MEMBER_ROLES)
  role?: MemberRole;
}

/** `POST /api/invitations/accept` and `/decline`: the token is the proof of being the invited person (the other proof is a verified e-mail: `POST /api/invitations/:invitationId/accept`). */
export class InvitationAnswerDto {
  @ApiProperty({ description: 'The token from the invitation' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  token: string;
}

/** `PATCH /api/circles/:circleId/members/me`: what each member sets for themselves only. */
export class MyMembershipDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 60, description: 'How the circle calls you; null clears it', example: 'Mum' })
  @Omittable()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(60)
  nickname?: string | null;

  @ApiPropertyOptional({ enum: [0, 1, 2], description: 'What this circle may do with your health data: 0 none, 1 view, 2 edit' })
  @Omittable()
  @IsInt()
  @IsIn([0, 1, 2])
  health_access?: HealthAccess;

  @ApiPropertyOptional({ enum: ['declined'], description: 'Withdraw from the circle while keeping your place listed as declined' })
  @Omittable()
  @IsIn(['declined'])
  status?: 'declined';
}

/** `PATCH /api/circles/:circleId/members/:memberId`. */
export class MemberRoleDto {
  @ApiProperty({ enum: MEMBER_ROLES })
  @IsIn(MEMBER_ROLES)
  role: MemberRole;
}

export class CircleDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: MEMBER_ROLES }) my_role: MemberRole;
  @ApiProperty({ format: 'uuid' }) my_member_id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class CircleListDto {
  @ApiProperty({ type: [CircleDto] }) circles: CircleDto[];
}

export class MemberDto {
  @ApiProperty({ format: 'uuid', description: 'Opaque member id; also what X-Acting-For and family_health take' }) member_id: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) nickname: string | null;
  @ApiProperty({ enum: MEMBER_ROLES }) role: MemberRole;
  @ApiProperty({ enum: MEMBER_STATUSES }) status: MemberStatus;
  @ApiProperty({ enum: [0, 1, 2] }) health_access: HealthAccess;
}

export class MemberListDto {
  @ApiProperty({ type: [MemberDto] }) members: MemberDto[];
}

export class IssuedInvitationDto {
  @ApiProperty({ format: 'uuid' }) member_id: string;
  @ApiProperty() email: string;
  @ApiProperty({ enum: MEMBER_ROLES }) role: MemberRole;
  @ApiProperty({ description: 'Shown once; only its hash is stored' }) token: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
}

export class InvitationOutcomeDto {
  @ApiProperty({ enum: ['accepted', 'declined'] }) status: 'accepted' | 'declined';
  @ApiPropertyOptional({ type: CircleDto }) circle?: CircleDto;
}

export class InviterDto {
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
}

/** An open invitation to the caller's verified e-mail address. */
export class PendingInvitationDto {
  @ApiProperty({ format: 'uuid', description: 'What `POST /api/invitations/:invitationId/accept` and `/decline` take' }) invitation_id: string;
  @ApiProperty({ format: 'uuid' }) circle_id: string;
  @ApiProperty() circle_name: string;
  @ApiProperty({ enum: MEMBER_ROLES, description: 'The role accepting gives' }) role: MemberRole;
  @ApiProperty({ type: InviterDto }) invited_by: InviterDto;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class PendingInvitationPageDto {
  @ApiProperty({ type: [PendingInvitationDto] }) items: PendingInvitationDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}
