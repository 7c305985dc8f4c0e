import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { FILE_STORAGE, FilesHousekeeping, type FileStorage } from '@app/files';
import { cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { fileBackends, fileRows, localFilesOnDisk, uploadFile } from './support/files.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * What kill -9 leaves behind (a fault run found 22 MB of `.part` per round, stored objects without
 * a row on PostgreSQL, extractions left `pending`) is put right by the files housekeeping, and what
 * is younger than FILES_CLEANUP_GRACE (an upload or extraction under way) is left alone.
 */
// The grace is the larger of FILES_CLEANUP_GRACE and twice FILES_EXTRACT_TIMEOUT: 2 s here.
const ENV = { JWT_SECRET: TEST_JWT_SECRET, FILES_OCR: 'off', FILES_CLEANUP_GRACE: '1', FILES_EXTRACT_TIMEOUT: '1' };
const GRACE_MS = 2000;

const backends = fileBackends('housekeeping');

describe.each(backends)('files housekeeping on %s', (backend, s3Env, s3Server) => {
  let app: RunningApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    env = { ...ENV, ...s3Env() };
    app = await startApp(env);
  });
  afterAll(async () => {
    await app?.close();
  });

  const storedKeys = async () => {
    const keys: string[] = [];
    for await (const { objectKey } of app.app.get<FileStorage>(FILE_STORAGE).listObjects()) keys.push(objectKey);
    return keys.sort();
  };
  const put = (objectKey: string) => app.app.get<FileStorage>(FILE_STORAGE).put(objectKey, Readable.from([Buffer.from('left behind')]));

  it('removes objects no file points to and partial uploads once older than the grace, runs pending extractions again, and keeps the rest', async () => {
    const token = await cliToken(app, env, '--sub', `housekeeping-${backend}`);
    const kept = await uploadFile(app, token, 'notes.txt', 'the text to read again', { type: 'text/plain' });
    expect(kept.status).toBe(201);
    const [row] = await fileRows(app);
    // A crash between storing the object and writing its row; a crash during extraction.
    await put('zz/orphan-of-a-crash');
    const data = app.app.get(DataSource);
    await data.query("UPDATE files SET extraction_status = 'pending', extracted_text = NULL WHERE object_key = $1", [row!.object_key]);
    const incoming = join(app.dataDir, 'files', 'incoming');
    if (backend === 'local disk') {
      mkdirSync(incoming, { recursive: true });
      writeFileSync(join(incoming, 'cut-by-kill.part'), 'half an upload');
    } else await s3Server()!.abandonUpload(`${env.S3_PREFIX}zz/cut-by-kill`);
    await new Promise((done) => setTimeout(done, GRACE_MS + 200));
    // Younger than the grace: as an upload under way, left alone.
    await put('yy/stored-just-now');
    if (backend === 'local disk') {
      writeFileSync(join(incoming, 'being-written.part'), 'an upload under way');
      utimesSync(join(incoming, 'being-written.part'), new Date(), new Date());
    } else await s3Server()!.abandonUpload(`${env.S3_PREFIX}yy/being-written`);

    await app.app.get(FilesHousekeeping).sweep();

    expect(await storedKeys()).toEqual([row!.object_key, 'yy/stored-just-now'].sort());
    const [status] = await data.query('SELECT extraction_status, extracted_text FROM files WHERE object_key = $1', [row!.object_key]);
    expect(status).toEqual({ extraction_status: 'done', extracted_text: 'the text to read again' });
    if (backend === 'local disk') {
      const parts = localFilesOnDisk(app).filter((path) => path.endsWith('.part'));
      expect(parts).toEqual([join(incoming, 'being-written.part')]);
    } else expect(await s3Server()!.uploadsInProgress()).toEqual([`${env.S3_PREFIX}yy/being-written`]);
  });
});
