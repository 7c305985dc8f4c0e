import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** A person known from a credential: created on their first valid token, keyed by who issued it and to whom. */
@Entity('users')
@Unique('users_issuer_subject_key', ['issuer', 'subject'])
export class UserEntity {
  /** `gen_random_uuid()`, built into PostgreSQL 13+ (the database module sets TypeORM's uuid generator to it). */
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  issuer: string;

  @Column('text')
  subject: string;

  @Column('text', { nullable: true })
  email: string | null;

  /** True only when the token that stored `email` said `email_verified: true`. */
  @Column('boolean', { name: 'email_verified', default: false })
  emailVerified: boolean;

  @Column('text', { nullable: true })
  name: string | null;

  /** The roles the latest token or sign-in carried (`admin` included when `ADMIN_EMAILS` made them one); written by `UsersService`. */
  @Column('text', { array: true, default: () => "'{}'" })
  roles: string[];

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;

  /** Set by an admin: every credential of the user is refused while it is. */
  @Column('timestamptz', { name: 'disabled_at', nullable: true })
  disabledAt: Date | null;
}
