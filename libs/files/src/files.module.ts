import { join } from 'node:path';
import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { optionsFromConfig, Tracing } from '@app/common';
import { DatabaseModule } from '@app/database';
import { StoredFileEntity } from './entities/stored-file.entity.js';
import { ExtractionRuns } from './extraction/extraction-runs.js';
import { FileExtraction } from './extraction/file-extraction.js';
import { FilesHousekeeping } from './files-housekeeping.js';
import { FilesUserData } from './files-user-data.js';
import { FILES_CONFIG_SECTION, FILES_OPTIONS, SIGNED_FILE_PATH, type FilesModuleOptions } from './files.options.js';
import { FilesService } from './files.service.js';
import { StorageCheck } from './storage-check.js';
import { AdminFilesController } from './http/admin-files.controller.js';
import { AllFilesController } from './http/all-files.controller.js';
import { FilesController } from './http/files.controller.js';
import { SignedFileController } from './http/signed-file.controller.js';
import { CreateFiles1796094447000 } from './migrations/1796094447000-create-files.js';
import { TrackExtractionRuns1797400400000 } from './migrations/1797400400000-track-extraction-runs.js';
import { FILE_STORAGE, type FileStorage } from './storage/file-storage.js';
import { FileUrlSigner } from './storage/file-url-signer.js';
import { LocalDiskStorage } from './storage/local-disk.storage.js';
import { TracedFileStorage } from './storage/traced.storage.js';
import { FileUploader } from './upload/file-uploader.js';

async function createStorage(options: FilesModuleOptions, signer: FileUrlSigner, tracing: Tracing): Promise<FileStorage> {
  const storage = await configuredStorage(options, signer);
  return tracing.enabled ? new TracedFileStorage(storage, tracing) : storage;
}

async function configuredStorage(options: FilesModuleOptions, signer: FileUrlSigner): Promise<FileStorage> {
  if (options.storage.kind === 's3') {
    // Loaded only for S3: the AWS SDK's modules kept 3 to 10 MB more resident in a server idle on local disk.
    const { S3Storage } = await import('./storage/s3.storage.js');
    return new S3Storage(options.storage);
  }
  return new LocalDiskStorage({
    root: join(options.dataDir, 'files'),
    signer,
    urlForToken: (token) => `${options.publicBaseUrl}/${SIGNED_FILE_PATH}/${token}`,
  });
}

/**
 * Uploaded files: storage (local disk or S3), the `files` table, text extraction, the user and
 * admin REST routes and signed downloads. Its options are the app configuration's `files` section;
 * a module whose services use `FilesService` imports this one.
 */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [StoredFileEntity], migrations: [CreateFiles1796094447000, TrackExtractionRuns1797400400000] }), AuthModule],
  controllers: [FilesController, AdminFilesController, AllFilesController, SignedFileController],
  providers: [
    optionsFromConfig(FILES_OPTIONS, FILES_CONFIG_SECTION),
    FileUrlSigner,
    { provide: FILE_STORAGE, inject: [FILES_OPTIONS, FileUrlSigner, Tracing], useFactory: createStorage },
    FileExtraction,
    ExtractionRuns,
    FilesHousekeeping,
    FileUploader,
    FilesService,
    FilesUserData,
    StorageCheck,
  ],
  // The storage too, for the server's backup of the embedded database with the local files.
  exports: [FilesService, FILE_STORAGE],
})
export class FilesModule implements OnApplicationShutdown {
  constructor(@Inject(FILE_STORAGE) private readonly storage: FileStorage) {}

  onApplicationShutdown(): void {
    this.storage.destroy?.();
  }
}
