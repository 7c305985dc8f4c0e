import type { Readable } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ConflictError } from '@app/common';
import { isEmbeddedDatabase } from '@app/database';
import { FILE_STORAGE, type FileStorage } from '@app/files';
import type { AppConfig } from '../config.js';
import { backupStream, type BackupManifest } from './backup.js';

/** Backups of the embedded database through the server that holds it, one at a time. */
@Injectable()
export class BackupService {
  private readonly logger = new Logger('Backup');
  private running = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  async start(requestedBy: string): Promise<{ stream: Readable; manifest: BackupManifest }> {
    if (!isEmbeddedDatabase(this.dataSource))
      throw new ConflictError('The database is PostgreSQL: back it up with pg_dump, and the files apart (docs/operations.md, Backup and restore)');
    // Two at once would share the staging directory, and double the time queries wait.
    if (this.running) throw new ConflictError('A backup is under way: try again when it has finished');
    this.running = true;
    try {
      const started = Date.now();
      const backup = await backupStream({
        dataSource: this.dataSource,
        storage: this.storage,
        dataDir: this.config.get('DATA_DIR', { infer: true }),
        version: this.config.get('version', { infer: true }),
      });
      this.logger.log(`Backup for admin ${requestedBy}: database and ${backup.manifest.objects} stored object(s) taken in ${Date.now() - started} ms; sending`);
      backup.stream.once('close', () => {
        this.running = false;
      });
      return backup;
    } catch (error) {
      this.running = false;
      throw error;
    }
  }
}
