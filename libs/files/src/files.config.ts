import { bool, ConfigError, defineConfigSection, duration, int, oneOf, optionalStr, str } from '@app/common';
import type { FilesModuleOptions } from './files.options.js';

const MiB = 1024 * 1024;
const HTTP_URL = { pattern: /^https?:\/\/[^\s/]+(\/\S*)?$/, expected: 'an http(s) URL' };

/**
 * The files lib's keys. Storage is S3 when S3_BUCKET is set, local disk (`${DATA_DIR}/files`)
 * otherwise. `toOptions` leaves `dataDir` and `publicBaseUrl` to the app, which owns those keys.
 */
export const filesConfig = defineConfigSection({
  keys: {
    FILES_MAX_BYTES: int(50 * MiB, { min: 1 }),
    FILES_MAX_TOTAL_BYTES_PER_USER: int(1024 * MiB, { min: 1 }),
    FILES_OCR: oneOf(['auto', 'off'] as const, 'auto'),
    FILES_READ_MAX_CHARS: int(100_000, { min: 1, max: 10_000_000 }),
    FILES_URL_TTL: duration(3600, { minSeconds: 10, maxSeconds: 7 * 24 * 3600 }),
    FILES_EXTRACT_MAX_BYTES: int(50 * MiB, { min: 1 }),
    FILES_EXTRACT_MAX_CHARS: int(1_000_000, { min: 1, max: 50_000_000 }),
    FILES_EXTRACT_TIMEOUT: duration(120, { minSeconds: 1, maxSeconds: 3600 }),
    FILES_EXTRACT_CONCURRENCY: int(2, { min: 1, max: 64 }),
    FILES_CLEANUP_GRACE: duration(3600, { minSeconds: 1, maxSeconds: 7 * 24 * 3600 }),
    S3_BUCKET: optionalStr({ pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, expected: 'an S3 bucket name' }),
    S3_REGION: str('us-east-1'),
    S3_ENDPOINT: optionalStr(HTTP_URL),
    S3_PUBLIC_ENDPOINT: optionalStr(HTTP_URL),
    S3_ACCESS_KEY_ID: optionalStr(),
    S3_SECRET_ACCESS_KEY: optionalStr({ secret: true }),
    S3_FORCE_PATH_STYLE: bool(false),
    S3_PREFIX: str('', { pattern: /^([A-Za-z0-9._-]+\/)*$/, expected: 'path segments each ending in "/", e.g. "mirobody/files/"' }),
  },
  validate(values) {
    if (Boolean(values.S3_ACCESS_KEY_ID) !== Boolean(values.S3_SECRET_ACCESS_KEY)) {
      throw new ConfigError(values.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID', 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
    }
    if (!values.S3_BUCKET && (values.S3_ENDPOINT || values.S3_ACCESS_KEY_ID || values.S3_PREFIX || values.S3_PUBLIC_ENDPOINT)) {
      throw new ConfigError('S3_BUCKET', 'other S3_* keys are set but S3_BUCKET is not: set it to store files in S3, or remove them');
    }
  },
  toOptions: (values): Omit<FilesModuleOptions, 'dataDir' | 'publicBaseUrl'> => ({
    storage: values.S3_BUCKET
      ? {
          kind: 's3',
          bucket: values.S3_BUCKET,
          region: values.S3_REGION,
          forcePathStyle: values.S3_FORCE_PATH_STYLE,
          prefix: values.S3_PREFIX,
          ...(values.S3_ENDPOINT ? { endpoint: values.S3_ENDPOINT } : {}),
          ...(values.S3_PUBLIC_ENDPOINT ? { publicEndpoint: values.S3_PUBLIC_ENDPOINT } : {}),
          ...(values.S3_ACCESS_KEY_ID ? { accessKeyId: values.S3_ACCESS_KEY_ID, secretAccessKey: values.S3_SECRET_ACCESS_KEY } : {}),
        }
      : { kind: 'local' },
    maxBytes: values.FILES_MAX_BYTES,
    maxTotalBytesPerUser: values.FILES_MAX_TOTAL_BYTES_PER_USER,
    readMaxChars: values.FILES_READ_MAX_CHARS,
    urlTtlSeconds: values.FILES_URL_TTL,
    cleanupGraceSeconds: values.FILES_CLEANUP_GRACE,
    extraction: {
      ocr: values.FILES_OCR,
      maxBytes: values.FILES_EXTRACT_MAX_BYTES,
      maxChars: values.FILES_EXTRACT_MAX_CHARS,
      timeoutMs: values.FILES_EXTRACT_TIMEOUT * 1000,
      concurrency: values.FILES_EXTRACT_CONCURRENCY,
    },
  }),
});
