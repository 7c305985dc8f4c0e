import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../../users/user.entity.js';

/** How a console session was signed in. */
export type ConsoleSignInMethod = 'oidc' | 'link';

/**
 * A signed-in browser of the web console: the cookie holds a random token, this row its hash. Every
 * request reads the row, so a sign-out, a disable or an erasure ends the session on every instance.
 */
@Entity('console_sessions')
export class ConsoleSessionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('console_sessions_token_hash_key', { unique: true })
  @Column('text', { name: 'token_hash' })
  tokenHash: string;

  @Index('console_sessions_user_id_idx')
  @Column('uuid', { name: 'user_id' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'console_sessions_user_id_fkey' })
  user?: UserEntity;

  /** The roles the sign-in carried (the provider's roles claim, ADMIN_EMAILS), for the session's life. */
  @Column('text', { array: true, default: () => "'{}'" })
  roles: string[];

  @Column('text', { name: 'sign_in' })
  signIn: ConsoleSignInMethod;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  /** Moved forward at most once a minute: the idle timeout counts from it. */
  @Column('timestamptz', { name: 'last_seen_at', default: () => 'now()' })
  lastSeenAt: Date;

  /** The absolute end, however active the session is. */
  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}

/** One-time sign-in links already used: a link's id may open one session, once. */
@Entity('console_link_redemptions')
export class ConsoleLinkRedemptionEntity {
  @PrimaryColumn('text', { name: 'link_id', primaryKeyConstraintName: 'console_link_redemptions_pkey' })
  linkId: string;

  @Column('timestamptz', { name: 'redeemed_at', default: () => 'now()' })
  redeemedAt: Date;
}
