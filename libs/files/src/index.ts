export { StoredFileEntity, type ExtractionStatus } from './entities/stored-file.entity.js';
export { filesConfig } from './files.config.js';
export { FilesHousekeeping } from './files-housekeeping.js';
export { FilesModule } from './files.module.js';
export { SIGNED_FILE_PATH, type FilesModuleOptions, type FilesStorageOptions } from './files.options.js';
export { FILE_NOT_FOUND, FilesService, modelMime, type FileForModel } from './files.service.js';
export { FILE_STORAGE, type ByteRange, type FileStorage, type StorageBackend, type StoredObject } from './storage/file-storage.js';
export type { StorageCheckReport } from './storage-check.js';
export { registerFileUploads } from './http/register-file-uploads.js';
