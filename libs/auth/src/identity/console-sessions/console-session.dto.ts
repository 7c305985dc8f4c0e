import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class RedeemLinkDto {
  @ApiProperty({ description: 'The part of the one-time link after `#`' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  token: string;
}

export class SessionUserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ description: 'Whether the caller may use the admin area' }) admin: boolean;
}

export class ConsoleSessionDto {
  @ApiProperty({ type: SessionUserDto }) user: SessionUserDto;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Send it in `X-CSRF-Token` with every POST, PATCH, PUT and DELETE made with the cookie; null for a bearer credential',
  })
  csrfToken: string | null;
  @ApiProperty({ enum: ['oidc', 'link'], nullable: true, description: 'How the session signed in; null for a bearer credential' })
  signIn: 'oidc' | 'link' | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the session ends at the latest' })
  expiresAt: string | null;
}
