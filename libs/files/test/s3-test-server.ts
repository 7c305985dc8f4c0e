import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { S3StorageOptions } from '../src/storage/s3.storage.js';

export interface S3TestServer {
  /** Options for `S3Storage` (and the S3_* keys) pointing at this server's bucket. */
  options: S3StorageOptions;
  /** The keys under which the bucket holds objects right now. */
  objectKeys(): Promise<string[]>;
  close(): Promise<void>;
}

export const S3_TEST_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** A real S3-protocol server (s3rver) on a random loopback port, with one empty bucket, in a temporary directory. */
export async function startS3TestServer(bucket = 'mirobody-files'): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'mirobody-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const address = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  const store = (server as unknown as { store: { listObjects(bucket: string, options: object): Promise<{ objects: { key: string }[] }> } }).store;
  return {
    options: { bucket, region: 'us-east-1', endpoint, forcePathStyle: true, prefix: 'test/', ...S3_TEST_CREDENTIALS },
    objectKeys: async () => (await store.listObjects(bucket, { maxKeys: 10_000 })).objects.map((object) => object.key),
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
