import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An identity assertion grant (ID-JAG) already exchanged, by its issuer and `jti`: one presented
 * again is refused on every instance. Kept until the assertion expires, after which it is refused
 * for that reason anyway.
 */
@Entity('oauth_used_assertions')
export class UsedAssertionEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'oauth_used_assertions_pkey' })
  issuer: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'oauth_used_assertions_pkey' })
  jti: string;

  @Index('oauth_used_assertions_expires_at_idx')
  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;
}
