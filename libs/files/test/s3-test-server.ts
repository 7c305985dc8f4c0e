import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateMultipartUploadCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import S3rver from 's3rver';
import type { S3StorageOptions } from '../src/storage/s3.storage.js';

export interface S3TestServer {
  /** Options for `S3Storage` (and the S3_* keys) pointing at this server's bucket. */
  options: S3StorageOptions;
  /** The keys under which the bucket holds objects right now. */
  objectKeys(): Promise<string[]>;
  /** The keys of the multipart uploads started and neither completed nor aborted. */
  uploadsInProgress(): Promise<string[]>;
  /**
   * Begins a multipart upload of `key` (the whole key, prefix included) with one part, and leaves
   * it, as a process killed mid-upload does; `addPart` uploads its next part, as a slow upload still under way does.
   */
  abandonUpload(key: string): Promise<{ addPart(): Promise<void> }>;
  close(): Promise<void>;
}

export const S3_TEST_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** A multipart upload as s3rver keeps it on disk: a folder per upload id holding its key and its parts. */
interface UploadOnDisk {
  uploadId: string;
  key: string;
  initiated: Date;
  folder: string;
}

/** Where s3rver's filesystem store keeps a bucket's multipart uploads (its `getResourcePath(bucket, '', 'uploads')`). */
const uploadsFolder = (directory: string, bucket: string) => join(directory, bucket, '._S3rver_uploads');

async function uploadsOnDisk(directory: string, bucket: string): Promise<UploadOnDisk[]> {
  const root = uploadsFolder(directory, bucket);
  const uploads: UploadOnDisk[] = [];
  for (const uploadId of await readdir(root).catch(() => [])) {
    const folder = join(root, uploadId);
    const keyFile = join(folder, 'key');
    uploads.push({ uploadId, folder, key: await readFile(keyFile, 'utf8'), initiated: (await stat(keyFile)).mtime });
  }
  // S3 lists uploads by key, then by when they started.
  return uploads.sort((a, b) => (a.key === b.key ? a.initiated.getTime() - b.initiated.getTime() : a.key < b.key ? -1 : 1));
}

const NO_SUCH_UPLOAD = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>';

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** ListParts' answer: every part of the upload, in one page. */
async function listPartsXml(bucket: string, key: string, upload: UploadOnDisk): Promise<string> {
  const parts = [];
  for (const name of await readdir(upload.folder)) {
    if (!/^\d+$/.test(name)) continue;
    const info = await stat(join(upload.folder, name));
    const etag = await readFile(join(upload.folder, `${name}.md5`), 'utf8');
    parts.push({ number: Number(name), modified: info.mtime, size: info.size, etag });
  }
  const listed = parts
    .sort((a, b) => a.number - b.number)
    .map(
      (part) =>
        `<Part><PartNumber>${part.number}</PartNumber><LastModified>${part.modified.toISOString()}</LastModified><ETag>"${part.etag}"</ETag><Size>${part.size}</Size></Part>`,
    )
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?><ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
    `<Bucket>${bucket}</Bucket><Key>${xmlText(key)}</Key><UploadId>${upload.uploadId}</UploadId><MaxParts>1000</MaxParts><IsTruncated>false</IsTruncated>${listed}</ListPartsResult>`
  );
}

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  status: number;
  type: string;
  body: unknown;
}

/**
 * The multipart operations s3rver 3 answers 405/501 to, over its own store: AbortMultipartUpload
 * (`DELETE /bucket/key?uploadId=`, which lib-storage sends when a body fails), ListMultipartUploads
 * (`GET /bucket?uploads`) and ListParts (`GET /bucket/key?uploadId=`), which housekeeping reads, as
 * the S3 API defines them: uploads by key, `prefix`, `max-uploads`, `key-marker` (paging by key is
 * enough for the tests: they start at most one upload per key); parts in one page. Requests are
 * not signature-checked.
 */
function multipartOperations(directory: string, bucket: string) {
  return async (ctx: KoaContext, next: () => Promise<void>) => {
    const [, pathBucket, ...keyParts] = ctx.path.split('/');
    if (pathBucket !== bucket) return next();
    const key = decodeURIComponent(keyParts.join('/'));
    const { uploadId } = ctx.query;
    if (key && typeof uploadId === 'string' && (ctx.method === 'DELETE' || ctx.method === 'GET')) {
      const upload = (await uploadsOnDisk(directory, bucket)).find((each) => each.uploadId === uploadId && each.key === key);
      ctx.type = 'application/xml';
      if (!upload) {
        ctx.status = 404;
        ctx.body = NO_SUCH_UPLOAD;
        return;
      }
      if (ctx.method === 'GET') {
        ctx.body = await listPartsXml(bucket, key, upload);
        return;
      }
      await rm(upload.folder, { recursive: true, force: true });
      ctx.status = 204;
      ctx.body = null;
      return;
    }
    if (ctx.method === 'GET' && !key && 'uploads' in ctx.query) {
      const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
      const marker = typeof ctx.query['key-marker'] === 'string' ? ctx.query['key-marker'] : '';
      const max = Number(ctx.query['max-uploads'] ?? 1000);
      const matching = (await uploadsOnDisk(directory, bucket)).filter((upload) => upload.key.startsWith(prefix) && upload.key > marker);
      const page = matching.slice(0, max);
      const truncated = matching.length > page.length;
      const next = truncated
        ? `<NextKeyMarker>${xmlText(page.at(-1)!.key)}</NextKeyMarker><NextUploadIdMarker>${page.at(-1)!.uploadId}</NextUploadIdMarker>`
        : '';
      const uploads = page
        .map(
          ({ key: uploadKey, uploadId, initiated }) =>
            `<Upload><Key>${xmlText(uploadKey)}</Key><UploadId>${uploadId}</UploadId><Initiated>${initiated.toISOString()}</Initiated><StorageClass>STANDARD</StorageClass></Upload>`,
        )
        .join('');
      ctx.type = 'application/xml';
      ctx.body =
        `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
        `<Bucket>${bucket}</Bucket><KeyMarker>${xmlText(marker)}</KeyMarker><Prefix>${xmlText(prefix)}</Prefix><MaxUploads>${max}</MaxUploads>` +
        `<IsTruncated>${truncated}</IsTruncated>${next}${uploads}</ListMultipartUploadsResult>`;
      return;
    }
    return next();
  };
}

/** A real S3-protocol server (s3rver) on a random loopback port, with one empty bucket, in a temporary directory. */
export async function startS3TestServer(bucket = 'mirobody-files'): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'mirobody-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  // Koa composes its middleware when the server starts listening: this one runs before s3rver's router.
  (server as unknown as { middleware: unknown[] }).middleware.unshift(multipartOperations(directory, bucket));
  const address = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  const store = (server as unknown as { store: { listObjects(bucket: string, options: object): Promise<{ objects: { key: string }[] }> } }).store;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_TEST_CREDENTIALS });
  return {
    options: { bucket, region: 'us-east-1', endpoint, forcePathStyle: true, prefix: 'test/', ...S3_TEST_CREDENTIALS },
    objectKeys: async () => (await store.listObjects(bucket, { maxKeys: 10_000 })).objects.map((object) => object.key),
    uploadsInProgress: async () => (await uploadsOnDisk(directory, bucket)).map((upload) => upload.key),
    abandonUpload: async (key) => {
      const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
      let parts = 0;
      const addPart = async () => {
        await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: ++parts, Body: randomBytes(1000) }));
      };
      await addPart();
      return { addPart };
    },
    close: async () => {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
