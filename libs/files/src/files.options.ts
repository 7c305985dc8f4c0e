import type { TextExtractorOptions } from './extraction/text-extractor.js';
import type { S3StorageOptions } from './storage/s3.storage.js';

export type FilesStorageOptions = { kind: 'local' } | ({ kind: 's3' } & S3StorageOptions);

/** The files lib's options: the `FILES_*` and `S3_*` keys, plus where the server lives. */
export interface FilesModuleOptions {
  /** The server's data directory; local-disk objects go to `${dataDir}/files`. */
  dataDir: string;
  /** The address signed local-disk URLs point at. */
  publicBaseUrl: string;
  storage: FilesStorageOptions;
  /** One upload's limit (FILES_MAX_BYTES). */
  maxBytes: number;
  /** All of one user's files together (FILES_MAX_TOTAL_BYTES_PER_USER). */
  maxTotalBytesPerUser: number;
  /** `read_file` inlines at most this many characters (FILES_READ_MAX_CHARS). */
  readMaxChars: number;
  /** How long a signed URL works (FILES_URL_TTL). */
  urlTtlSeconds: number;
  /** What a crash left (partial uploads, objects without a row, pending extractions) is put right once this old (FILES_CLEANUP_GRACE). */
  cleanupGraceSeconds: number;
  extraction: TextExtractorOptions;
}

export const FILES_OPTIONS = Symbol('FILES_OPTIONS');

/** The section of the app's configuration (`ConfigService`) that holds `FilesModuleOptions`. */
export const FILES_CONFIG_SECTION = 'files';

/** The app route (under the public base URL) that serves signed local-disk links. */
export const SIGNED_FILE_PATH = 'files/signed';
