import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { StorageBackend } from '../storage/file-storage.js';
import { servableMediaType } from '../upload/media-type.js';

/** `pending` while extraction runs, then `done`, `none` (nothing to extract) or `failed: <reason>`. */
export type ExtractionStatus = 'pending' | 'done' | 'none' | `failed: ${string}`;

/** One uploaded file: who owns it, what it is, where its bytes are, and the text read out of it. */
@Entity('files')
@Index('files_user_created_idx', ['userId', 'createdAt', 'id'])
@Index('files_user_filename_idx', ['userId', 'filename', 'id'])
// Every user's files newest first (GET /admin/files), and those whose text is still awaited or failed,
// few among many, without reading the rest.
@Index('files_created_idx', ['createdAt', 'id'])
@Index('files_extraction_unfinished_idx', ['createdAt', 'id'], { where: "extraction_status = 'pending' OR extraction_status LIKE 'failed:%'" })
export class StoredFileEntity {
  /** Made by the uploader (randomUUID), so that the row's id is known before the insert. */
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  /** The public handle: random, opaque, never derived from the name, content or time. */
  @Index('files_file_key_key', { unique: true })
  @Column('text', { name: 'file_key' })
  fileKey: string;

  /** Sanitized, for display only: never used to build a path or key. */
  @Column('text')
  filename: string;

  /** Read through `servableMediaType`: a row stored before declared types were parsed may hold one no header can carry. */
  @Column('text', { transformer: { to: (value: string) => value, from: (value: string) => servableMediaType(value) } })
  mime: string;

  // bigint arrives from pg as a string; the transformer keeps it a number (files are far below 2^53).
  @Column('bigint', { transformer: { to: (value: number) => value, from: (value: string | null) => (value === null ? null : Number(value)) } })
  size: number;

  @Column('text')
  sha256: string;

  @Column('text', { name: 'storage_backend' })
  storageBackend: StorageBackend;

  @Column('text', { name: 'object_key' })
  objectKey: string;

  @Column('text', { name: 'extraction_status', default: 'pending' })
  extractionStatus: ExtractionStatus;

  /**
   * When the latest extraction run was claimed (`ExtractionRuns`): a run whose claim is older than
   * twice the extraction timeout is under way nowhere. Null for the extraction of the upload itself.
   */
  @Column('timestamptz', { name: 'extraction_started_at', nullable: true })
  extractionStartedAt: Date | null;

  /** Left out of queries unless asked for: it can be large, and lists never need it. */
  @Column('text', { name: 'extracted_text', nullable: true, select: false })
  extractedText: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  /** Set when deletion starts: the file is gone for every reader, and the row goes once its object has. */
  @Column('timestamptz', { name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
