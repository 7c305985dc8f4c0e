import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ConnectionEntity } from './connection.entity.js';

/**
 * One refresh token of a connection, by its hash. Each is used once: refreshing marks it used and
 * issues the next; a used one presented again means it leaked, and revokes the connection.
 */
@Entity('oauth_refresh_tokens')
export class RefreshTokenEntity {
  @PrimaryColumn('text', { name: 'token_hash', primaryKeyConstraintName: 'oauth_refresh_tokens_pkey' })
  tokenHash: string;

  @Index('oauth_refresh_tokens_connection_id_idx')
  @Column('uuid', { name: 'connection_id' })
  connectionId: string;

  @ManyToOne(() => ConnectionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'connection_id', foreignKeyConstraintName: 'oauth_refresh_tokens_connection_id_fkey' })
  connection?: ConnectionEntity;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  @Column('timestamptz', { name: 'used_at', nullable: true })
  usedAt: Date | null;
}
