import { Column, Entity, Index, ManyToOne, JoinColumn, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../../users/user.entity.js';

/** A personal MCP secret; the secret itself is shown once at creation and only its hash is kept. */
@Entity('mcp_secrets')
export class McpSecretEntity {
  /** `gen_random_uuid()`, built into PostgreSQL 13+ (the database module sets TypeORM's uuid generator to it). */
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('mcp_secrets_user_id_idx')
  @Column('uuid', { name: 'user_id' })
  userId: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'mcp_secrets_user_id_fkey' })
  user?: UserEntity;

  @Column('text')
  label: string;

  /** The client it was made for (e.g. "cursor"), for the owner's own overview. */
  @Column('text', { nullable: true })
  agent: string | null;

  @Index('mcp_secrets_secret_hash_key', { unique: true })
  @Column('text', { name: 'secret_hash' })
  secretHash: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  /** Revoked secrets are kept (not deleted) so the owner's list and audits can still name them. */
  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
