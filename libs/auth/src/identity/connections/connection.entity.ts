import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../../users/user.entity.js';

/**
 * A client the user connected through the built-in authorization server (Claude, ChatGPT, Cursor):
 * the grant its access and refresh tokens stand on. Revoking it ends every token of it at once.
 */
@Entity('oauth_connections')
export class ConnectionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('oauth_connections_user_id_idx')
  @Column('uuid', { name: 'user_id' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'oauth_connections_user_id_fkey' })
  user?: UserEntity;

  /** The client's id: its metadata document's URL (CIMD), or the id this server registered for it (DCR). */
  @Column('text', { name: 'client_id' })
  clientId: string;

  @Column('text', { name: 'client_name' })
  clientName: string;

  /** False for a client that registered itself (DCR): its name is its own word. */
  @Column('boolean', { name: 'client_verified' })
  clientVerified: boolean;

  /** The scopes granted, space-separated as in OAuth. */
  @Column('text')
  scope: string;

  /** The resource (RFC 8707) its tokens are for: this server's `/mcp`. */
  @Column('text')
  resource: string;

  /** The roles the identity provider vouched for at the latest sign-in or refresh (`admin`, or none). */
  @Column('text', { array: true, default: () => "'{}'" })
  roles: string[];

  /**
   * The identity provider's refresh token, sealed (`ServerKeys`): each refresh of the connection
   * asks the provider again, so a role it removed, or an account it closed, ends at the next
   * refresh. Null when the provider gave none (then the connection keeps no roles past its first tokens).
   */
  @Column('text', { name: 'provider_refresh_token', nullable: true })
  providerRefreshToken: string | null;

  /** For a connection an identity provider granted (an ID-JAG), that provider's issuer; null for one the user consented to. */
  @Column('text', { name: 'assertion_issuer', nullable: true })
  assertionIssuer: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  /** Revoked connections are kept, so the owner's list and audits can still name them. */
  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
