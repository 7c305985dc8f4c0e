import { describe, expect, it } from '@jest/globals';
import { filesConfig } from './files.config.js';

describe('filesConfig', () => {
  it('defaults to local disk, 50 MiB uploads, OCR when available, 1 h links', () => {
    expect(filesConfig.load({})).toMatchObject({
      storage: { kind: 'local' },
      maxBytes: 50 * 1024 * 1024,
      readMaxChars: 100_000,
      urlTtlSeconds: 3600,
      extraction: { ocr: 'auto' },
    });
  });

  it('stores in S3 when S3_BUCKET is set', () => {
    const options = filesConfig.load({
      S3_BUCKET: 'my-files',
      S3_ENDPOINT: 'http://minio:9000',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_PREFIX: 'a/b/',
    });
    expect(options.storage).toEqual({
      kind: 's3',
      bucket: 'my-files',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      prefix: 'a/b/',
    });
  });

  it.each([
    [{ FILES_MAX_BYTES: '0' }, 'FILES_MAX_BYTES'],
    [{ FILES_OCR: 'on' }, 'FILES_OCR'],
    [{ FILES_URL_TTL: '30d' }, 'FILES_URL_TTL'],
    [{ S3_ENDPOINT: 'http://minio:9000' }, 'S3_BUCKET'],
    [{ S3_BUCKET: 'bkt', S3_ACCESS_KEY_ID: 'id' }, 'S3_SECRET_ACCESS_KEY'],
    [{ S3_BUCKET: 'Not_A_Bucket' }, 'S3_BUCKET'],
    [{ S3_BUCKET: 'bucket', S3_PREFIX: '../x' }, 'S3_PREFIX'],
  ])('refuses %j naming %s', (env, key) => {
    expect(() => filesConfig.load(env)).toThrow(`Invalid configuration ${key}`);
  });

  it('never echoes the secret key', () => {
    expect(() => filesConfig.load({ S3_BUCKET: 'bkt', S3_SECRET_ACCESS_KEY: 'hunter2-secret' })).toThrow(/S3_ACCESS_KEY_ID/);
    try {
      filesConfig.load({ S3_BUCKET: 'bkt', S3_SECRET_ACCESS_KEY: 'hunter2-secret' });
    } catch (error) {
      expect(String(error)).not.toContain('hunter2');
    }
  });
});
