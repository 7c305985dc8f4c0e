import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidInputError, Metrics, PayloadTooLargeError } from '@app/common';
import { Repository, type EntityManager } from 'typeorm';
import { StoredFileEntity } from '../entities/stored-file.entity.js';
import { FileExtraction } from '../extraction/file-extraction.js';
import { FILES_OPTIONS, type FilesModuleOptions } from '../files.options.js';
import { FILE_STORAGE, type FileStorage } from '../storage/file-storage.js';
import { detectMime } from './detect-mime.js';
import { BodyTooLargeError, MeteredStream } from './metered-stream.js';
import { sanitizeFilename } from './sanitize-filename.js';

export interface UploadRequest {
  userId: string;
  /** The file's bytes, read once, as they arrive. */
  body: Readable;
  /** The name the client gave; sanitized before it is kept. */
  filename?: string;
  /** The part's Content-Type; one hint among others for the stored type. */
  declaredMime?: string;
  /** The size the client announced (a raw body's Content-Length): over the limit or the quota, it is refused before a byte is read. */
  declaredSize?: number;
}

/** A random, opaque public key: 128 bits, base64url. */
const newFileKey = () => randomBytes(16).toString('base64url');

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Sums the sizes of a user's live files. */
async function bytesUsed(manager: EntityManager, userId: string): Promise<number> {
  const [row] = await manager.query('SELECT COALESCE(SUM(size), 0)::text AS used FROM files WHERE user_id = $1 AND deleted_at IS NULL', [userId]);
  return Number(row.used);
}

/**
 * Takes an upload from the wire to storage and the `files` table: streamed through a meter that
 * stops it at the size limit or the user's quota, typed from its content, recorded, then read for
 * text. A failed or refused upload leaves neither object nor row.
 */
@Injectable()
export class FileUploader {
  private readonly logger = new Logger(FileUploader.name);

  constructor(
    @InjectRepository(StoredFileEntity) private readonly files: Repository<StoredFileEntity>,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(FILES_OPTIONS) private readonly options: FilesModuleOptions,
    private readonly extraction: FileExtraction,
    private readonly metrics: Metrics,
  ) {}

  async upload({ userId, body, filename: rawName, declaredMime, declaredSize }: UploadRequest): Promise<StoredFileEntity> {
    const quotaLeft = this.options.maxTotalBytesPerUser - (await bytesUsed(this.files.manager, userId));
    const limit = Math.min(this.options.maxBytes, quotaLeft);
    if (quotaLeft <= 0 || (declaredSize !== undefined && declaredSize > limit)) {
      body.resume();
      throw declaredSize !== undefined && declaredSize > this.options.maxBytes ? this.fileTooLarge() : this.quotaExceeded();
    }
    const filename = sanitizeFilename(rawName);
    const fileKey = newFileKey();
    const objectKey = `${fileKey.slice(0, 2)}/${fileKey}`;
    const meter = new MeteredStream(limit);
    // Whichever side fails first says why: the request body (cut, malformed, too large) or the storage.
    let firstFailure: { side: 'request' | 'storage'; error: unknown } | undefined;
    const settle = (side: 'request' | 'storage', work: Promise<void>) =>
      work.catch((error: unknown) => {
        firstFailure ??= { side, error };
      });
    // Both settle before anything is answered: the storage must have cleaned up a cut upload first.
    await Promise.all([settle('request', pipeline(body, meter)), settle('storage', this.storage.put(objectKey, meter))]);
    if (firstFailure) {
      if (firstFailure.error instanceof BodyTooLargeError) throw limit < this.options.maxBytes ? this.quotaExceeded() : this.fileTooLarge();
      if (firstFailure.side === 'storage') throw firstFailure.error;
      throw new InvalidInputError(`The file in the request could not be read to its end: ${errorMessage(firstFailure.error)}`, {
        file: 'incomplete or malformed multipart body',
      });
    }

    const file = this.files.create({
      id: randomUUID(),
      userId,
      fileKey,
      filename,
      mime: await detectMime({ head: meter.head(), filename, declaredMime }),
      size: meter.bytes,
      sha256: meter.sha256(),
      storageBackend: this.storage.backend,
      objectKey,
      extractionStatus: 'pending',
      extractedText: null,
      // Set here rather than by now(): keyset pages compare it, and a JavaScript Date holds milliseconds only.
      createdAt: new Date(),
      deletedAt: null,
    });
    try {
      await this.files.manager.transaction(async (manager) => {
        // One upload at a time per user past this point, so that two cannot both squeeze under the quota.
        await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [userId]);
        if ((await bytesUsed(manager, userId)) + file.size > this.options.maxTotalBytesPerUser) throw this.quotaExceeded();
        await manager.insert(StoredFileEntity, file);
      });
    } catch (error) {
      await this.storage
        .delete(objectKey)
        .catch((cleanup: unknown) => this.logger.error(`Could not remove object ${objectKey} of a refused upload: ${String(cleanup)}`));
      throw error;
    }
    this.metrics.uploadBytes(file.size);

    const { status, text } = await this.extraction.run(file);
    await this.files.update({ id: file.id }, { extractionStatus: status, extractedText: text });
    return Object.assign(file, { extractionStatus: status, extractedText: text });
  }

  private fileTooLarge(): PayloadTooLargeError {
    return new PayloadTooLargeError(`The file is larger than ${this.options.maxBytes} bytes, the upload limit (FILES_MAX_BYTES)`);
  }

  private quotaExceeded(): PayloadTooLargeError {
    return new PayloadTooLargeError(
      `The upload would exceed your storage quota of ${this.options.maxTotalBytesPerUser} bytes (FILES_MAX_TOTAL_BYTES_PER_USER); delete files to make room`,
    );
  }
}
