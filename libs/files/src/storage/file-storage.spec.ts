import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { startS3TestServer, type S3TestServer } from '../../test/s3-test-server.js';
import type { FileStorage } from './file-storage.js';
import { LocalDiskStorage } from './local-disk.storage.js';
import { StoredObjectMissingError } from './object-keys.js';
import { S3Storage } from './s3.storage.js';

/** A signer stand-in for the local backend's URLs; the real one is tested with the route that checks it. */
const signer = { sign: (payload: string) => `signed.${payload}`, verify: () => null };

/** A body that sends `good` bytes, then fails as a client hanging up would. */
function failingBody(good: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(good);
      } else this.destroy(new Error('client went away'));
    },
  });
}

let root: string;
let s3: S3TestServer;
/** An upload begun and not finished; `write` sends more of it, as an upload still under way does. */
type StartedUpload = (name: string) => Promise<{ write(): Promise<void> }>;

/** Per backend: its storage, everything it holds (uploads in progress included), and a way to begin an upload and leave it, as a crash would. */
const backends: [string, () => FileStorage, () => Promise<string[]>, StartedUpload][] = [
  [
    'local disk',
    () => new LocalDiskStorage({ root, signer, urlForToken: (token) => `http://localhost/files/signed/${token}` }),
    async () => listLocal(root),
    async (name) => {
      const path = join(root, 'incoming', `${name}.part`);
      mkdirSync(join(root, 'incoming'), { recursive: true });
      writeFileSync(path, 'half an upload');
      return { write: async () => appendFileSync(path, ' and more') };
    },
  ],
  [
    'S3',
    () => new S3Storage(s3.options),
    async () => [...(await s3.objectKeys()), ...(await s3.uploadsInProgress()).map((key) => `(upload in progress) ${key}`)],
    async (name) => {
      const upload = await s3.abandonUpload(`${s3.options.prefix}${name}`);
      return { write: upload.addPart };
    },
  ],
];

function listLocal(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mirobody-storage-'));
  s3 = await startS3TestServer();
});
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await s3.close();
});

describe.each(backends)('%s storage', (_name, make, listObjects, abandonUpload) => {
  it('stores a stream and reads it back whole and by range, then deletes it', async () => {
    const storage = make();
    const body = randomBytes(3 * 1024 * 1024 + 17);
    await storage.put('ab/object-1', Readable.from([body.subarray(0, 1000), body.subarray(1000)]));
    // Buffer.equals: Jest's deep equality walks megabytes byte by byte.
    expect((await buffer(await storage.get('ab/object-1'))).equals(body)).toBe(true);
    expect(await buffer(await storage.get('ab/object-1', { start: 10, end: 19 }))).toEqual(body.subarray(10, 20));
    await storage.delete('ab/object-1');
    await expect(storage.get('ab/object-1')).rejects.toBeInstanceOf(StoredObjectMissingError);
    await storage.delete('ab/object-1');
  });

  it('lists each object with its size, as the storage check compares it with the row', async () => {
    const storage = make();
    await storage.put('ef/sized', Readable.from([Buffer.from('twelve bytes')]));
    const listed: { objectKey: string; size: number }[] = [];
    for await (const { objectKey, size } of storage.listObjects()) listed.push({ objectKey, size });
    expect(listed).toContainEqual({ objectKey: 'ef/sized', size: 12 });
    await storage.delete('ef/sized');
  });

  it('leaves nothing behind when the body fails midway, small or multipart', async () => {
    const storage = make();
    await storage.put('cd/kept', Readable.from([Buffer.from('kept')]));
    const before = await listObjects();
    await expect(storage.put('cd/cut-small', failingBody(randomBytes(1000)))).rejects.toThrow();
    await expect(storage.put('cd/cut-large', failingBody(randomBytes(20 * 1024 * 1024)))).rejects.toThrow();
    expect(await listObjects()).toEqual(before);
    await storage.delete('cd/kept');
  });

  it('removes the uploads not written to since the cut-off, and no others', async () => {
    const storage = make();
    const before = await listObjects();
    await abandonUpload('cut-by-kill');
    const slow = await abandonUpload('slow-but-going');
    await new Promise((done) => setTimeout(done, 50));
    const cutOff = new Date();
    await new Promise((done) => setTimeout(done, 50));
    await slow.write();
    await abandonUpload('just-begun');
    expect(await listObjects()).toHaveLength(before.length + 3);

    expect(await storage.removeLeftoverUploads!(cutOff)).toBe(1);
    const left = (await listObjects()).filter((entry) => !before.includes(entry));
    expect(left.map((entry) => /slow-but-going|just-begun|cut-by-kill/.exec(entry)?.[0]).sort()).toEqual(['just-begun', 'slow-but-going']);
    expect(await storage.removeLeftoverUploads!(new Date(Date.now() + 1000))).toBe(2);
    expect(await listObjects()).toEqual(before);
  });

  it('refuses keys that could leave its root or prefix', async () => {
    const storage = make();
    for (const key of ['../escape', 'a/../../b', '/absolute', 'a//b', 'with space', '']) {
      await expect(storage.put(key, Readable.from([Buffer.from('x')]))).rejects.toThrow(/malformed object key/);
    }
  });
});

describe('signed URLs', () => {
  it('point at the app route on local disk', async () => {
    const storage = backends[0][1]();
    expect(await storage.signedReadUrl('ab/object', { filename: 'a.png', mime: 'image/png', expiresAt: new Date(Date.now() + 60_000) })).toBe(
      'http://localhost/files/signed/signed.ab/object',
    );
  });

  it('are presigned GETs on S3 that download the object with its name and type', async () => {
    const storage = new S3Storage(s3.options);
    const body = randomBytes(5000);
    await storage.put('ef/photo', Readable.from([body]));
    const url = await storage.signedReadUrl('ef/photo', { filename: 'Röntgen 1.png', mime: 'image/png', expiresAt: new Date(Date.now() + 60_000) });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-disposition')).toContain('attachment');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(body);
  });
});
