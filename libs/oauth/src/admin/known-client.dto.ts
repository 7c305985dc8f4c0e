import { ApiProperty } from '@nestjs/swagger';
import type { ClientKind } from './known-clients.service.js';

export class AdminOAuthClientDto {
  @ApiProperty({ description: "Its metadata document's URL (CIMD), or the id this server registered for it (DCR)" }) clientId: string;
  @ApiProperty({ description: 'A registered client names itself; a metadata-document client by its document, at its latest sign-in' }) name: string;
  @ApiProperty({ enum: ['registered', 'metadata-document'] }) kind: ClientKind;
  @ApiProperty({ description: 'True for a metadata-document client fetched over https; a registered client never is' }) verified: boolean;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: "A registered client's redirect URIs; null for a metadata-document client, whose document (at its id) holds them",
  })
  redirectUris: string[] | null;
  @ApiProperty({ type: String, format: 'date-time', description: "Its registration, or a metadata-document client's first connection" }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: "When a registered client's registration lapses without another sign-in" })
  expiresAt: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Its latest sign-in or token refresh, by any user' }) lastUsedAt: Date | null;
  @ApiProperty({ description: 'Its connections not revoked, of every user' }) activeConnections: number;
}

export class AdminOAuthClientPageDto {
  @ApiProperty({ type: [AdminOAuthClientDto] }) items: AdminOAuthClientDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}
