import { ApiProperty } from '@nestjs/swagger';
import type { ConnectionView } from './connections.service.js';

/** A connected client as its user (or an admin) sees it: never a token. */
export class ConnectionViewDto implements ConnectionView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: "The client's id: its metadata document's URL, or the id /register gave it" }) client_id: string;
  @ApiProperty() client_name: string;
  @ApiProperty({ description: 'Whether the name comes from a metadata document fetched over https (else the client named itself)' }) client_verified: boolean;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ type: String, nullable: true, description: 'The identity provider that granted it (an ID-JAG), or null when the user consented' })
  granted_by: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_used_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revoked_at: string | null;
}

export class ConnectionListDto {
  @ApiProperty({ type: [ConnectionViewDto], description: 'Newest first, revoked ones included' }) connections: ConnectionViewDto[];
}
