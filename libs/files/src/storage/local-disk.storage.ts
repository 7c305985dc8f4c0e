import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, FileStorage, SignedUrlOptions, StoredObject } from './file-storage.js';
import { assertObjectKey, StoredObjectMissingError } from './object-keys.js';
import type { UrlSigner } from './url-signer.js';

/**
 * How much of an upload may wait for the disk. With the default 16 KiB every 64 KiB socket read
 * paused the upload until its write came back from libuv's thread pool, which held a 1 GiB upload
 * to about half the speed it reaches when the socket goes on being read while a write is under
 * way (`npm run bench:files`); what queues meanwhile goes down in one writev. 1 MiB was as quick
 * as 8 MiB there; 32 MiB was no quicker and added 100 MB of RSS.
 */
const WRITE_BUFFER_BYTES = 1024 * 1024;

export interface LocalDiskStorageOptions {
  /** `${DATA_DIR}/files`. */
  root: string;
  /** Signs the object key for the app's own download route. */
  signer: UrlSigner;
  /** Turns a signed token into the absolute URL of that route. */
  urlForToken: (token: string) => string;
}

/**
 * Objects as files under `root/objects`. A body is written to `root/incoming` first and renamed
 * into place only when complete, so a reader never sees half an object and a failed upload leaves
 * nothing but a temporary file that is removed on the spot.
 */
export class LocalDiskStorage implements FileStorage {
  readonly backend = 'local' as const;
  private readonly objectsDir: string;
  private readonly incomingDir: string;

  constructor(private readonly options: LocalDiskStorageOptions) {
    this.objectsDir = join(options.root, 'objects');
    this.incomingDir = join(options.root, 'incoming');
  }

  localPath(objectKey: string): string {
    return join(this.objectsDir, assertObjectKey(objectKey));
  }

  async put(objectKey: string, body: Readable): Promise<void> {
    const target = this.localPath(objectKey);
    await mkdir(this.incomingDir, { recursive: true });
    await mkdir(dirname(target), { recursive: true });
    const temporary = join(this.incomingDir, `${randomBytes(12).toString('hex')}.part`);
    const file = createWriteStream(temporary, { flags: 'wx', highWaterMark: WRITE_BUFFER_BYTES });
    try {
      await pipeline(body, file);
      await rename(temporary, target);
    } catch (error) {
      // A body that fails while the file is still being opened: the stream creates the file after
      // the pipeline has given up, so the removal waits until the stream has closed.
      if (!file.closed) await new Promise<void>((closed) => file.once('close', () => closed()));
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(objectKey: string, range?: ByteRange): Promise<Readable> {
    const path = this.localPath(objectKey);
    try {
      await stat(path);
    } catch {
      throw new StoredObjectMissingError(objectKey);
    }
    return createReadStream(path, range ? { start: range.start, end: range.end } : {});
  }

  async delete(objectKey: string): Promise<void> {
    await rm(this.localPath(objectKey), { force: true });
  }

  async *listObjects(): AsyncIterable<StoredObject> {
    // Keys are `xx/fileKey`: one level of folders.
    for (const folder of await readdir(this.objectsDir).catch(() => [])) {
      for (const name of await readdir(join(this.objectsDir, folder)).catch(() => [])) {
        const info = await stat(join(this.objectsDir, folder, name)).catch(() => undefined);
        if (info?.isFile()) yield { objectKey: `${folder}/${name}`, modifiedAt: info.mtime, size: info.size };
      }
    }
  }

  async removeLeftoverUploads(writtenBefore: Date): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.incomingDir).catch(() => [])) {
      const path = join(this.incomingDir, name);
      const info = await stat(path).catch(() => undefined);
      // An upload under way writes its file as it reads the request: a recent mtime.
      if (name.endsWith('.part') && info && info.mtime < writtenBefore) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async signedReadUrl(objectKey: string, { expiresAt }: SignedUrlOptions): Promise<string> {
    return this.options.urlForToken(this.options.signer.sign(assertObjectKey(objectKey), expiresAt));
  }
}
