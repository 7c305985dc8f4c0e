import { ApiProperty } from '@nestjs/swagger';

/** What the owner sees of a secret: never the secret, nor its hash. */
export class SecretSummaryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() label: string;
  @ApiProperty({ type: String, nullable: true }) agent: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedAt: Date | null;
}

export class SecretPageDto {
  @ApiProperty({ type: [SecretSummaryDto] }) items: SecretSummaryDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}

export class CreatedSecretDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'The secret itself: shown in this answer only' }) secret: string;
  @ApiProperty({ description: 'The MCP URL with the secret in its path, for clients that take only a URL' }) url: string;
}
