import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { describeError } from '@app/common';
import { StoredFileEntity, type ExtractionStatus } from '../entities/stored-file.entity.js';
import { FILES_OPTIONS, type FilesModuleOptions } from '../files.options.js';
import { FileExtraction } from './file-extraction.js';

/** A claim on a file's extraction: the moment it was claimed, as the database wrote it (to the microsecond). */
type Claim = string;

export interface RerunOutcome {
  /** False while the extraction still runs (in the background), or when one was already under way. */
  finished: boolean;
  extractionStatus: ExtractionStatus;
}

/**
 * Runs a file's text extraction again, one run per file at a time across instances. A run claims
 * the file first, in one statement: it turns `pending` (its old text cleared) with the claim's time
 * in `extraction_started_at`, unless a run is under way already (`pending`, claimed or uploaded
 * within `staleAfterMs`); only the run holding the latest claim writes its outcome. A run cut off
 * by a crash or a shutdown leaves the file `pending`, and a later claim (the housekeeping's) takes
 * it over once it is stale.
 */
@Injectable()
export class ExtractionRuns implements OnApplicationShutdown {
  private readonly logger = new Logger('ExtractionRuns');
  private stopping = false;

  constructor(
    @InjectRepository(StoredFileEntity) private readonly files: Repository<StoredFileEntity>,
    @Inject(FILES_OPTIONS) private readonly options: FilesModuleOptions,
    private readonly extraction: FileExtraction,
  ) {}

  /** An extraction claimed longer ago than this is under way nowhere: it outlived its own time limit twice. */
  get staleAfterMs(): number {
    return this.options.extraction.timeoutMs * 2;
  }

  /** The process is going: a run that ends now writes nothing, and the file stays `pending` for the housekeeping. */
  onApplicationShutdown(): void {
    this.stopping = true;
  }

  /**
   * Starts the file's extraction again and waits up to `waitMs` for it: finished then, with its
   * status; otherwise it goes on in the background (`pending`). A file whose extraction is under
   * way is not extracted twice: it is answered `pending`.
   */
  async rerun(file: StoredFileEntity, waitMs: number): Promise<RerunOutcome> {
    const claim = await this.claim(file.id, this.staleAfterMs);
    if (claim === undefined) return { finished: false, extractionStatus: 'pending' };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs)));
    const recorded = await Promise.race([this.run(file, claim), waited]);
    clearTimeout(timer);
    return recorded === undefined ? { finished: false, extractionStatus: 'pending' } : { finished: true, extractionStatus: recorded };
  }

  /**
   * Claims the extraction of a live file: undefined when a run claimed or uploaded within
   * `staleAfterMs` is still `pending`, or the file is gone.
   */
  async claim(fileId: string, staleAfterMs: number): Promise<Claim | undefined> {
    const [rows] = (await this.files.query(
      `UPDATE files SET extraction_status = 'pending', extracted_text = NULL, extraction_started_at = now()
       WHERE id = $1 AND deleted_at IS NULL
         AND (extraction_status <> 'pending' OR COALESCE(extraction_started_at, created_at) < now() - $2::integer * interval '1 millisecond')
       RETURNING extraction_started_at::text AS claim`,
      [fileId, staleAfterMs],
    )) as [{ claim: Claim }[], number];
    return rows[0]?.claim;
  }

  /**
   * Extracts the claimed file and records the outcome, unless a later claim took the file over:
   * the status recorded, or undefined when none was (the file stays `pending`, for a later claim
   * to take over once stale). Never rejects.
   */
  async run(file: Pick<StoredFileEntity, 'id' | 'objectKey' | 'mime' | 'size'>, claim: Claim): Promise<ExtractionStatus | undefined> {
    try {
      const { status, text } = await this.extraction.run(file);
      if (this.stopping) return undefined;
      const [, written] = (await this.files.query(
        `UPDATE files SET extraction_status = $2, extracted_text = $3
         WHERE id = $1 AND extraction_status = 'pending' AND extraction_started_at = $4::timestamptz`,
        [file.id, status, text, claim],
      )) as [unknown, number];
      return written > 0 ? status : undefined;
    } catch (error) {
      this.logger.error(`Could not record the extraction of file ${file.id}: ${describeError(error)}`);
      return undefined;
    }
  }
}
