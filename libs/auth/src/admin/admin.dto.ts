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
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: "The latest use of any of the user's credentials: a token (to the minute), an MCP secret, a connected client's refresh, a console session",
  })
  lastSeenAt: Date | null;
  @ApiProperty({ type: [String], description: 'The roles their latest token or sign-in carried; `admin` included when ADMIN_EMAILS made them one' })
  roles: string[];
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
