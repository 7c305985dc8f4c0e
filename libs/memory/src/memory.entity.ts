import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { MemoryKind } from './memory.options.js';
import { SEARCH_VECTOR_EXPRESSION } from './migrations/1796094241000-create-memories.js';

/**
 * One remembered sentence of one user. Indexes TypeORM cannot express (GIN, expressions, partial)
 * are created by the migration and declared here by name with `synchronize: false`, so the schema
 * builder neither drops nor recreates them.
 */
@Entity('memories')
@Check('memories_kind_check', `kind IN ('fact', 'preference', 'episode')`)
@Check('memories_validity_check', 'valid_to IS NULL OR valid_to >= valid_from')
@Check('memories_superseded_check', 'superseded_by IS NULL OR valid_to IS NOT NULL')
@Index('memories_user_live_created_idx', ['userId', 'deletedAt', 'createdAt', 'id'])
@Index('memories_user_dedupe_key', { synchronize: false })
@Index('memories_search_vector_idx', { synchronize: false })
@Index('memories_deleted_at_idx', { synchronize: false })
@Index('memories_user_current_key', { synchronize: false })
@Index('memories_superseded_by_idx', { synchronize: false })
@Index('memories_user_recent_idx', { synchronize: false })
export class MemoryEntity {
  // The migration's default is gen_random_uuid() (built into PostgreSQL 13+), which TypeORM reads back as a generated uuid.
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Column('text')
  kind: MemoryKind;

  @Column('text')
  text: string;

  /** `dedupeKey(text)`: equal keys are one memory. */
  @Column('text', { name: 'dedupe_key' })
  dedupeKey: string;

  /** `searchText(text)`: the text with CJK bigrams, which the full-text vector is generated from. */
  @Column('text', { name: 'search_text' })
  searchText: string;

  @Column({
    type: 'tsvector',
    name: 'search_vector',
    generatedType: 'STORED',
    asExpression: SEARCH_VECTOR_EXPRESSION,
    nullable: true,
    select: false,
    insert: false,
    update: false,
  })
  searchVector: string;

  /** The MCP session or conversation it was told in, when known. */
  @Column('text', { nullable: true })
  source: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;

  /** When the fact became true: when it was stored, unless the user said otherwise. */
  @Column('timestamptz', { name: 'valid_from', default: () => 'now()' })
  validFrom: Date;

  /** When it stopped being true: null while it is current; set when another memory supersedes it. */
  @Column('timestamptz', { name: 'valid_to', nullable: true })
  validTo: Date | null;

  /** The memory that superseded this one (checked at commit, so both are written in one transaction). */
  @ForeignKey(() => MemoryEntity, { name: 'memories_superseded_by_fkey', onDelete: 'SET NULL', deferrable: 'INITIALLY DEFERRED' })
  @Column('uuid', { name: 'superseded_by', nullable: true })
  supersededBy: string | null;

  /** A short normalized slot ("home city"): a new memory with the key of a current one supersedes it. */
  @Column('text', { nullable: true })
  key: string | null;

  /** Set by a user's delete: the memory is never recalled or listed again, and is purged after MEMORY_DELETED_RETENTION. */
  @Column('timestamptz', { name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
