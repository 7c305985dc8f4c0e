import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import { describeError, PeriodicJob } from '@app/common';
import { StoredFileEntity } from './entities/stored-file.entity.js';
import { ExtractionRuns } from './extraction/extraction-runs.js';
import { FILES_OPTIONS, type FilesModuleOptions } from './files.options.js';
import { FILE_STORAGE, type FileStorage } from './storage/file-storage.js';

/** Object keys looked up in the `files` table per query. */
const KEYS_PER_QUERY = 500;

/**
 * What a crash (kill -9, a lost machine) leaves behind, put right at start-up and then every
 * `cleanupGraceSeconds` (FILES_CLEANUP_GRACE): partial uploads, stored objects no row points to
 * (stored, then the process died before the row was written), and files whose text extraction
 * never finished (still `pending`), whose extraction is run again. Only what is older than the
 * grace period is touched, so an upload or an extraction under way, here or on another instance,
 * is left alone.
 */
@Injectable()
export class FilesHousekeeping implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('FilesHousekeeping');
  /** At once, then every grace period; one round at a time, a slow one never queued behind itself. */
  private readonly job: PeriodicJob;

  constructor(
    @InjectRepository(StoredFileEntity) private readonly files: Repository<StoredFileEntity>,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(FILES_OPTIONS) private readonly options: FilesModuleOptions,
    private readonly extractions: ExtractionRuns,
  ) {
    this.job = new PeriodicJob(
      { firstDelayMs: 0, intervalMs: this.graceMs },
      () => this.sweep(),
      (error) => this.logger.error(`Files housekeeping failed: ${describeError(error)}`),
    );
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** An extraction older than this is no longer under way anywhere: it outlived its own time limit. */
  private get graceMs(): number {
    return Math.max(this.options.cleanupGraceSeconds * 1000, this.options.extraction.timeoutMs * 2);
  }

  /** One round of all three; on the timer, a failure is logged and the next round tries again. */
  async sweep(): Promise<void> {
    const before = new Date(Date.now() - this.graceMs);
    const uploads = (await this.storage.removeLeftoverUploads?.(before)) ?? 0;
    const objects = await this.removeOrphanObjects(before);
    const extractions = await this.finishExtractions(before);
    if (uploads || objects || extractions) {
      this.logger.log(`Removed ${uploads} partial upload(s) and ${objects} stored object(s) no file points to; extracted ${extractions} file(s) left pending`);
    }
  }

  private async removeOrphanObjects(writtenBefore: Date): Promise<number> {
    let removed = 0;
    let batch: string[] = [];
    const removeUnknown = async () => {
      // Rows of deleted files count too: their objects are the delete path's to remove.
      const known = new Set((await this.files.find({ select: { objectKey: true }, where: { objectKey: In(batch) } })).map((row) => row.objectKey));
      for (const objectKey of batch.filter((key) => !known.has(key))) {
        await this.storage.delete(objectKey);
        removed++;
      }
      batch = [];
    };
    for await (const { objectKey, modifiedAt } of this.storage.listObjects()) {
      if (this.job.stopping) break;
      if (modifiedAt >= writtenBefore) continue;
      batch.push(objectKey);
      if (batch.length === KEYS_PER_QUERY) await removeUnknown();
    }
    if (batch.length) await removeUnknown();
    return removed;
  }

  /**
   * Runs again, one at a time, the extractions still `pending` that were uploaded (or last run)
   * before `startedBefore`. Each is claimed first, so that another instance's housekeeping, or a
   * run asked for meanwhile, does not extract the same file as well.
   */
  private async finishExtractions(startedBefore: Date): Promise<number> {
    const pending = await this.files
      .createQueryBuilder('f')
      .where(`f.extraction_status = 'pending' AND f.deleted_at IS NULL AND COALESCE(f.extraction_started_at, f.created_at) < :startedBefore`, { startedBefore })
      .orderBy('f.created_at', 'ASC')
      .getMany();
    let finished = 0;
    for (const file of pending) {
      if (this.job.stopping) break;
      const claim = await this.extractions.claim(file.id, this.graceMs);
      if (claim !== undefined && (await this.extractions.run(file, claim)) !== undefined) finished++;
    }
    return finished;
  }
}
