import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { PageQueryDto, Omittable } from '@app/common';

export class UserSearchQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Part of an e-mail, name or subject (case-insensitive)', maxLength: 200 })
  @Omittable()
  @IsString()
  @MaxLength(200)
  q?: string;
}

export class AdminUserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() issuer: string;
  @ApiProperty() subject: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) disabledAt: Date | null;
}

export class AdminUserPageDto {
  @ApiProperty({ type: [AdminUserDto] }) items: AdminUserDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}

export class AdminUserDetailDto extends AdminUserDto {
  @ApiProperty({
    description: 'How many items each lib holds for the user',
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { account: 3 },
  })
  counts: Record<string, number>;
}

export class AuditEntryDto {
  @ApiProperty() id: string;
  @ApiProperty({ format: 'uuid' }) actorId: string;
  @ApiProperty({ type: String, nullable: true }) actorEmail: string | null;
  @ApiProperty({ example: 'user.disable' }) action: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) targetUserId: string | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true }) detail: Record<string, unknown> | null;
  @ApiProperty({ type: String, format: 'date-time' }) at: Date;
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryDto] }) items: AuditEntryDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}
