import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Readable } from 'node:stream';
import { cursorKey, decodeCursor, instantKeySql, InvalidInputError, NotFoundError, toPage, type Page } from '@app/common';
import { In, IsNull, Not, Repository, type FindOptionsSelect } from 'typeorm';
import { StoredFileEntity } from './entities/stored-file.entity.js';
import { isTextMime } from './extraction/extraction-kind.js';
import { FILES_OPTIONS, type FilesModuleOptions } from './files.options.js';
import { FILE_STORAGE, type ByteRange, type FileStorage } from './storage/file-storage.js';
import { StoredObjectMissingError } from './storage/object-keys.js';

export type FileSort = 'time' | 'name';

export interface FileListQuery {
  limit: number;
  cursor?: string;
  sort: FileSort;
  /** An exact type (`image/png`) or a family (`image/*`). */
  mime?: string;
}

/** Extraction states as the admin list filters them: `failed` stands for every `failed: <reason>`. */
export const EXTRACTION_FILTERS = ['pending', 'failed', 'done', 'none'] as const;
export type ExtractionFilter = (typeof EXTRACTION_FILTERS)[number];

/** The SQL condition of each filter, as text: the partial index of unfinished extractions matches only its own literals. */
const EXTRACTION_CONDITIONS: Record<ExtractionFilter, string> = {
  pending: "f.extraction_status = 'pending'",
  failed: "f.extraction_status LIKE 'failed:%'",
  done: "f.extraction_status = 'done'",
  none: "f.extraction_status = 'none'",
};

/** The most of a file's extracted text one answer carries (`GET /api/files/:key/text`). */
export const MAX_TEXT_CHARS = 200_000;

/** A file's extracted text, cut at `MAX_TEXT_CHARS`. */
export interface FileText {
  fileKey: string;
  extractionStatus: string;
  /** Null when there is none: nothing to extract, not done yet, or failed. */
  text: string | null;
  truncated: boolean;
}

/** A file of any user's, with its owner (the admin list). */
export interface OwnedFile {
  file: StoredFileEntity;
  ownerEmail: string | null;
}

/** How often a read waiting for an extraction looks again. */
const EXTRACTION_POLL_MS = 1000;

/** Waits `ms`; rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const timer = setTimeout(() => (signal.removeEventListener('abort', abort), resolve()), ms);
    const abort = () => (clearTimeout(timer), reject(signal.reason));
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** What `read_file` hands the model: the text, or a link to the bytes. */
export type FileForModel =
  { filename: string; mime: string; content: string; note?: string } | { filename: string; mime: string; url: string; expires_at: string; note: string };

/** The message for a key that is unknown, malformed, deleted, or someone else's: all the same. */
export const FILE_NOT_FOUND = 'File not found.';
const FILE_KEY = /^[A-Za-z0-9_-]{22}$/;
/** Every user's files, newest first: the creation time (to the microsecond), then the id. */
const ALL_FILES_KEYSET = [cursorKey.instant, cursorKey.uuid] as const;
/** A cursor names the order it was issued for, so that it is not read as a place in the other. */
const KEYSETS = {
  time: [cursorKey.oneOf('time'), cursorKey.instant, cursorKey.uuid],
  name: [cursorKey.oneOf('name'), cursorKey.text, cursorKey.uuid],
} as const;
const MIME_FILTER = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/;

/**
 * A user's files: listing, reading, downloading, signing and deleting, always through the owner's
 * own rows, so that a key alone opens nothing.
 */
@Injectable()
export class FilesService implements OnApplicationBootstrap {
  private readonly logger = new Logger(FilesService.name);

  constructor(
    @InjectRepository(StoredFileEntity) private readonly files: Repository<StoredFileEntity>,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(FILES_OPTIONS) private readonly options: FilesModuleOptions,
  ) {}

  /** Finishes deletions a previous run started but did not complete (their objects may remain). */
  async onApplicationBootstrap(): Promise<void> {
    const unfinished = await this.files.find({ where: { deletedAt: Not(IsNull()) } });
    if (unfinished.length) await this.remove(unfinished).catch((error: unknown) => this.logger.warn(`Unfinished file deletions remain: ${String(error)}`));
  }

  async list(userId: string, query: FileListQuery): Promise<Page<StoredFileEntity>> {
    const builder = this.files.createQueryBuilder('f').where('f.user_id = :userId AND f.deleted_at IS NULL', { userId });
    if (query.mime !== undefined) {
      const mime = query.mime.toLowerCase();
      if (!MIME_FILTER.test(mime)) throw new InvalidInputError('Invalid mime filter', { mime: 'expected a type such as image/png or image/*' });
      if (mime.endsWith('/*')) builder.andWhere('starts_with(f.mime, :family)', { family: mime.slice(0, -1) });
      else builder.andWhere('f.mime = :mime', { mime });
    }
    if (query.cursor !== undefined) {
      const advice = 'pass the nextCursor of the previous page with the same sort';
      const [, value, id] = decodeCursor(query.cursor, KEYSETS[query.sort], { advice });
      if (query.sort === 'time') builder.andWhere('(f.created_at, f.id) < (:value, :id)', { value, id });
      else builder.andWhere('(f.filename, f.id) > (:value, :id)', { value, id });
    }
    if (query.sort === 'time') builder.addSelect(instantKeySql('f.created_at'), 'created_key').orderBy('f.created_at', 'DESC').addOrderBy('f.id', 'DESC');
    else builder.orderBy('f.filename', 'ASC').addOrderBy('f.id', 'ASC');
    const { entities, raw } = await builder.limit(query.limit + 1).getRawAndEntities<{ created_key: string }>();
    return query.sort === 'time'
      ? toPage(entities, query.limit, KEYSETS.time, (row, index) => ['time' as const, raw[index]!.created_key, row.id])
      : toPage(entities, query.limit, KEYSETS.name, (row) => ['name' as const, row.filename, row.id]);
  }

  /** Every user's live files, newest first, with their owners' addresses; optionally only those in one state of extraction. */
  async listAll(query: { limit: number; cursor?: string; extraction?: ExtractionFilter }): Promise<Page<OwnedFile>> {
    // The users table is auth's: read in SQL, as a lib reads another's tables.
    const builder = this.files
      .createQueryBuilder('f')
      .leftJoin('users', 'owner', 'owner.id = f.user_id')
      .addSelect('owner.email', 'owner_email')
      .addSelect(instantKeySql('f.created_at'), 'created_key')
      .where('f.deleted_at IS NULL');
    if (query.extraction !== undefined) builder.andWhere(EXTRACTION_CONDITIONS[query.extraction]);
    if (query.cursor !== undefined) {
      const [createdAt, id] = decodeCursor(query.cursor, ALL_FILES_KEYSET);
      builder.andWhere('(f.created_at, f.id) < (CAST(:createdAt AS timestamptz), CAST(:id AS uuid))', { createdAt, id });
    }
    const { entities, raw } = await builder
      .orderBy('f.created_at', 'DESC')
      .addOrderBy('f.id', 'DESC')
      .limit(query.limit + 1)
      .getRawAndEntities<{ created_key: string; owner_email: string | null }>();
    const owned = entities.map((file, index) => ({ file, ownerEmail: raw[index]!.owner_email, key: raw[index]!.created_key }));
    return toPage(
      owned,
      query.limit,
      ALL_FILES_KEYSET,
      (row) => [row.key, row.file.id],
      ({ file, ownerEmail }) => ({ file, ownerEmail }),
    );
  }

  /** The text extracted from the owner's file, cut at `MAX_TEXT_CHARS` (read from the database that far only). */
  async text(userId: string, fileKey: string): Promise<FileText> {
    const [row]: { extraction_status: string; text: string | null; truncated: boolean | null }[] = FILE_KEY.test(fileKey)
      ? await this.files.query(
          `SELECT extraction_status, left(extracted_text, $3) AS text, length(extracted_text) > $3 AS truncated
           FROM files WHERE user_id = $1 AND file_key = $2 AND deleted_at IS NULL`,
          [userId, fileKey, MAX_TEXT_CHARS],
        )
      : [];
    if (!row) throw new NotFoundError(FILE_NOT_FOUND);
    return { fileKey, extractionStatus: row.extraction_status, text: row.text, truncated: row.truncated === true };
  }

  /** The newest of a user's files, for the model's list (`max + 1` tells whether there are more). */
  recent(userId: string, max: number): Promise<StoredFileEntity[]> {
    return this.files.find({ where: { userId, deletedAt: IsNull() }, order: { createdAt: 'DESC', id: 'DESC' }, take: max });
  }

  /** The caller's own live file; any other key is "not found". */
  async get(userId: string, fileKey: string, withText = false): Promise<StoredFileEntity> {
    const file = FILE_KEY.test(fileKey)
      ? await this.files.findOne({
          where: { userId, fileKey, deletedAt: IsNull() },
          ...(withText ? { select: selectWithText(this.files) } : {}),
        })
      : null;
    if (!file) throw new NotFoundError(FILE_NOT_FOUND);
    return file;
  }

  /** The bytes of a file (or `range` of them). */
  async open(file: StoredFileEntity, range?: ByteRange): Promise<Readable> {
    try {
      return await this.storage.get(file.objectKey, range);
    } catch (error) {
      if (error instanceof StoredObjectMissingError) {
        this.logger.error(`${error.message} (file ${file.id})`);
        throw new NotFoundError(FILE_NOT_FOUND);
      }
      throw error;
    }
  }

  /** A link that downloads the file without credentials until it expires. */
  async signedUrl(file: StoredFileEntity): Promise<{ url: string; expiresAt: Date }> {
    const expiresAt = new Date(Date.now() + this.options.urlTtlSeconds * 1000);
    return { url: await this.storage.signedReadUrl(file.objectKey, { filename: file.filename, mime: file.mime, expiresAt }), expiresAt };
  }

  /** The live file a signed local-disk URL names. */
  async byObjectKey(objectKey: string): Promise<StoredFileEntity | null> {
    return this.files.findOne({ where: { objectKey, deletedAt: IsNull() } });
  }

  /**
   * `read_file`: extracted (or plain) text inline, cut at FILES_READ_MAX_CHARS with a note; other
   * files as a signed URL. With `waitWhilePending`, a file whose text is still being extracted
   * (its upload is not answered yet) is read once the extraction ends, unless the signal aborts
   * first; without, it is answered at once, with its URL.
   */
  async readForModel(userId: string, fileKey: string, waitWhilePending?: AbortSignal): Promise<FileForModel> {
    let file = await this.get(userId, fileKey, true);
    // An extraction ends within its timeout; a row pending past it is one a crash left (the housekeeping reruns it).
    const givingUpAt = file.createdAt.getTime() + 2 * this.options.extraction.timeoutMs;
    while (waitWhilePending && file.extractionStatus === 'pending' && Date.now() < givingUpAt) {
      // The extraction may run on another instance: its row is what says it ended.
      await sleep(EXTRACTION_POLL_MS, waitWhilePending);
      file = await this.get(userId, fileKey, true);
    }
    if (file.extractedText !== null) {
      const text = file.extractedText;
      const max = this.options.readMaxChars;
      const content = text.length > max ? text.slice(0, max) : text;
      const note = text.length > max ? `Cut at character ${max} of ${text.length}; the rest is not shown.` : undefined;
      return { filename: file.filename, mime: modelMime(file.mime), content, ...(note ? { note } : {}) };
    }
    const { url, expiresAt } = await this.signedUrl(file);
    return {
      filename: file.filename,
      mime: file.mime,
      url,
      expires_at: expiresAt.toISOString(),
      note: `No text could be read from this file (extraction: ${file.extractionStatus}); the URL downloads its bytes until ${expiresAt.toISOString()}.`,
    };
  }

  async delete(userId: string, fileKey: string): Promise<void> {
    await this.remove([await this.get(userId, fileKey)]);
  }

  /** Every file of a user, objects included; returns how many there were. */
  async eraseAll(userId: string): Promise<number> {
    const files = await this.files.find({ where: { userId } });
    await this.remove(files);
    return files.length;
  }

  async countFor(userId: string): Promise<number> {
    return this.files.count({ where: { userId, deletedAt: IsNull() } });
  }

  /** Every live file of a user with its extracted text, oldest first (for the user's data export). */
  async allOf(userId: string): Promise<StoredFileEntity[]> {
    return this.files.find({ where: { userId, deletedAt: IsNull() }, order: { createdAt: 'ASC', id: 'ASC' }, select: selectWithText(this.files) });
  }

  /**
   * Hides the files at once (deleted_at), then removes each object and only then its row, so that
   * a crash midway leaves rows that say which objects still have to go.
   */
  private async remove(files: StoredFileEntity[]): Promise<void> {
    if (!files.length) return;
    await this.files.update({ id: In(files.map((file) => file.id)), deletedAt: IsNull() }, { deletedAt: new Date(), extractedText: null });
    for (const file of files) {
      await this.storage.delete(file.objectKey);
      await this.files.delete({ id: file.id });
    }
  }
}

/** Every column, including the extracted text that lists leave out. */
function selectWithText(files: Repository<StoredFileEntity>): FindOptionsSelect<StoredFileEntity> {
  return Object.fromEntries(files.metadata.columns.map((column) => [column.propertyName, true]));
}

/** As the seed says: a file read as extracted text is `text/plain` to the model; text files keep their own type. */
export function modelMime(mime: string): string {
  return isTextMime(mime) ? mime : 'text/plain';
}
