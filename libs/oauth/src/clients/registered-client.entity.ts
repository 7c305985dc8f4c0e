import { Column, Entity, PrimaryColumn } from 'typeorm';

/** How a client proves itself at `/token` (RFC 7591 `token_endpoint_auth_method`). */
export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** A client that registered itself (RFC 7591 Dynamic Client Registration). */
@Entity('oauth_clients')
export class RegisteredClientEntity {
  /** `mrb_client_` and 128 random bits. */
  @PrimaryColumn('text')
  id: string;

  /** Only the hash of a confidential client's secret; null for a public client. */
  @Column('text', { name: 'secret_hash', nullable: true })
  secretHash: string | null;

  @Column('text', { name: 'auth_method' })
  authMethod: ClientAuthMethod;

  /** The name it gave itself: shown on the consent page as unverified. */
  @Column('text', { name: 'client_name' })
  clientName: string;

  @Column('text', { name: 'client_uri', nullable: true })
  clientUri: string | null;

  @Column('jsonb', { name: 'redirect_uris' })
  redirectUris: string[];

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  /** Pushed on by each sign-in; an expired client is unknown and is purged. */
  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;
}
