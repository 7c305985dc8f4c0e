import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsNotEmpty, IsString, IsUUID, MaxLength } from 'class-validator';
import { Omittable, PageQueryDto } from '@app/common';

/** `?userId=&clientId=&active=` of `GET /admin/connections`. */
export class ConnectionQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Only this user's connections" })
  @Omittable()
  @IsUUID('all', { message: 'userId must be a UUID' })
  userId?: string;

  @ApiPropertyOptional({ maxLength: 2000, description: "Only this client's: its metadata document's URL, or the id this server registered for it" })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  clientId?: string;

  @ApiPropertyOptional({ type: Boolean, description: '`true`: only those not revoked; `false`: only revoked ones' })
  @Omittable()
  // A query string holds text: only the two words are read as booleans, anything else is refused by name.
  @Transform(({ obj }: { obj: { active?: unknown } }) => (obj.active === 'true' ? true : obj.active === 'false' ? false : obj.active), { toClassOnly: true })
  @IsBoolean({ message: 'active must be true or false' })
  active?: boolean;
}

export class AdminConnectionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty({ type: String, nullable: true }) userEmail: string | null;
  @ApiProperty({ description: "Its metadata document's URL (CIMD), or the id this server registered for it (DCR)" }) clientId: string;
  @ApiProperty({ description: 'The name the consent page showed' }) clientName: string;
  @ApiProperty({ description: 'True for a client named by its metadata document; a registered client names itself' }) verified: boolean;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ type: String, format: 'date-time', description: 'When the user signed in and consented' }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Its latest token refresh' }) lastUsedAt: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Null while the connection is active' }) revokedAt: Date | null;
}

export class AdminConnectionPageDto {
  @ApiProperty({ type: [AdminConnectionDto] }) items: AdminConnectionDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}
