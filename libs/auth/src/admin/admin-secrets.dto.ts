import { ApiProperty } from '@nestjs/swagger';

/** What an admin sees of a user's MCP secret: never the secret, nor its hash. */
export class AdminMcpSecretDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() label: string;
  @ApiProperty({ type: String, nullable: true, description: 'The client it was made for' }) agent: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'To the minute' }) lastUsedAt: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Set once revoked, by the user or an admin' }) revokedAt: Date | null;
}

export class AdminMcpSecretPageDto {
  @ApiProperty({ type: [AdminMcpSecretDto], description: 'Newest first, revoked ones included' }) items: AdminMcpSecretDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}
