import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import { Metrics } from '@app/common';
import type { StoredFileEntity } from '../entities/stored-file.entity.js';
import { FILES_OPTIONS, type FilesModuleOptions } from '../files.options.js';
import { FILE_STORAGE, type FileStorage } from '../storage/file-storage.js';
import { TextExtractor, type Extraction } from './text-extractor.js';

/** Runs the text extractor on a stored file, wherever the storage keeps it. */
@Injectable()
export class FileExtraction {
  private readonly extractor: TextExtractor;

  constructor(
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(FILES_OPTIONS) options: FilesModuleOptions,
    metrics: Metrics,
  ) {
    this.extractor = new TextExtractor(options.extraction);
    metrics.gauge(
      'files_extractions',
      'Text extractions of uploaded files: running, and waiting for a slot (FILES_EXTRACT_CONCURRENCY)',
      () => this.extractor.load(),
      'state',
    );
  }

  async run(file: Pick<StoredFileEntity, 'objectKey' | 'mime' | 'size'>): Promise<Extraction> {
    if (!(await this.extractor.canExtract(file.mime))) return { status: 'none', text: null };
    const localPath = this.storage.localPath(file.objectKey);
    if (localPath) return this.extractor.extract(localPath, file.mime, file.size);
    // Remote objects are read from a temporary copy, fetched only when small enough to be read at all.
    const refused = this.extractor.refuseSize(file.size);
    if (refused) return refused;
    const directory = await mkdtemp(join(tmpdir(), 'mirobody-extract-'));
    try {
      const copy = join(directory, 'object');
      await pipeline(await this.storage.get(file.objectKey), createWriteStream(copy));
      return await this.extractor.extract(copy, file.mime, file.size);
    } catch (error) {
      return { status: `failed: ${error instanceof Error ? error.message : String(error)}`, text: null };
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
}
