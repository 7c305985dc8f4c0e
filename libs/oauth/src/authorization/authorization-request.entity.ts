import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One sign-in through the built-in authorization server, from `/authorize` to `/token`, kept in the
 * database so that any instance can take each step: what the client asked for, the identity
 * provider leg's secrets, the browser it is bound to, the user once signed in, and the code.
 * Secrets a request carries (the browser binding, the consent form's token, the code) are stored
 * hashed; the identity-provider PKCE verifier and nonce are this server's own and short-lived, and
 * the provider's refresh token is sealed.
 */
@Entity('oauth_authorization_requests')
export class AuthorizationRequestEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The `state` sent to the identity provider: 256 random bits, cleared once used. */
  @Index('oauth_authorization_requests_provider_state_key', { unique: true })
  @Column('text', { name: 'provider_state', nullable: true })
  providerState: string | null;

  @Column('text', { name: 'provider_code_verifier' })
  providerCodeVerifier: string;

  @Column('text', { name: 'provider_nonce' })
  providerNonce: string;

  /** Hash of the cookie set in the browser that started the request: the later steps need that browser. */
  @Column('text', { name: 'browser_binding_hash' })
  browserBindingHash: string;

  /** This server's issuer identifier as the client reached it: the code's `iss` and the tokens'. */
  @Column('text')
  issuer: string;

  @Column('text', { name: 'client_id' })
  clientId: string;

  @Column('text', { name: 'client_name' })
  clientName: string;

  @Column('boolean', { name: 'client_verified' })
  clientVerified: boolean;

  @Column('text', { name: 'redirect_uri' })
  redirectUri: string;

  /** The client's `state`, returned as it came; null when it sent none. */
  @Column('text', { nullable: true })
  state: string | null;

  @Column('text', { name: 'code_challenge' })
  codeChallenge: string;

  /** Space-separated, as granted on the consent page. */
  @Column('text')
  scope: string;

  @Column('text')
  resource: string;

  @Column('uuid', { name: 'user_id', nullable: true })
  userId: string | null;

  @ManyToOne('UserEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'oauth_authorization_requests_user_id_fkey' })
  user?: unknown;

  /** The roles the identity provider vouched for at the sign-in, for the connection the code opens. */
  @Column('text', { array: true, default: () => "'{}'" })
  roles: string[];

  /** The identity provider's refresh token from the sign-in, sealed (`ServerKeys`), until the code hands it to the connection. */
  @Column('text', { name: 'provider_refresh_token', nullable: true })
  providerRefreshToken: string | null;

  @Column('text', { name: 'consent_token_hash', nullable: true })
  consentTokenHash: string | null;

  @Index('oauth_authorization_requests_code_hash_key', { unique: true })
  @Column('text', { name: 'code_hash', nullable: true })
  codeHash: string | null;

  @Column('timestamptz', { name: 'code_expires_at', nullable: true })
  codeExpiresAt: Date | null;

  @Column('timestamptz', { name: 'code_used_at', nullable: true })
  codeUsedAt: Date | null;

  /** When the code was presented again after its use: whatever it gave, then or later, is revoked. */
  @Column('timestamptz', { name: 'code_reused_at', nullable: true })
  codeReusedAt: Date | null;

  /** The connection the code opened: revoked if the code is presented again (RFC 6749 §4.1.2). */
  @Column('uuid', { name: 'connection_id', nullable: true })
  connectionId: string | null;

  /** The whole sign-in must finish by then; the row is purged a while after. */
  @Index('oauth_authorization_requests_expires_at_idx')
  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;
}
