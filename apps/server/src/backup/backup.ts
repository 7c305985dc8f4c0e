import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DataSource } from 'typeorm';
import { restoreEmbeddedDatabase, snapshotEmbeddedDatabase } from '@app/database';
import type { FileStorage } from '@app/files';
import { NotABackupError, readTar, tarStream, type TarEntry } from './tar.js';

/** What a backup archive holds, in its first entry (`manifest.json`). */
export interface BackupManifest {
  format: 1;
  createdAt: string;
  /** The server version that wrote it. */
  version: string;
  /** `local`: the objects are in the archive; `s3`: the bucket is backed up on its own. */
  storage: 'local' | 's3';
  objects: number;
}

const MANIFEST = 'manifest.json';
const DATABASE = 'database.tar';
const OBJECTS = 'files/objects';
// An object key is `xx/<fileKey>` (see the files lib): nothing else is written out of an archive.
const OBJECT_ENTRY = /^files\/objects\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+$/;

/** The staged copy of the local objects, next to them (hard links need the same file system). */
export const stagingDir = (dataDir: string) => join(dataDir, 'files', 'backup-staging');

export interface BackupSources {
  dataSource: DataSource;
  storage: FileStorage;
  dataDir: string;
  version: string;
}

/**
 * A backup of the running server's embedded database and local files, as a tar stream.
 *
 * The database is dumped while no query runs, and at that same moment every local object is
 * hard-linked into a staging directory: an upload stores its object before its row, so each row of
 * the dump has its object among the links, and a file deleted while the archive is being written
 * keeps its bytes through the link. Holding the session costs the queries waiting meanwhile the
 * checkpoint, the dump and one link per object. The staging directory is removed when the stream
 * ends, however it ends.
 */
export async function backupStream({ dataSource, storage, dataDir, version }: BackupSources): Promise<{ stream: Readable; manifest: BackupManifest }> {
  const staging = stagingDir(dataDir);
  // Whatever an earlier backup cut off by a crash left; one backup runs at a time (BackupService).
  await rm(staging, { recursive: true, force: true });
  const staged: { objectKey: string; size: number; modifiedAt: Date }[] = [];
  let archive: Buffer;
  try {
    archive = await snapshotEmbeddedDatabase(dataSource, async () => {
      if (storage.backend !== 'local') return;
      for await (const { objectKey, size, modifiedAt } of storage.listObjects()) {
        const target = join(staging, objectKey);
        await mkdir(dirname(target), { recursive: true });
        try {
          await link(storage.localPath(objectKey)!, target);
        } catch (error) {
          // Listed, then removed by a deletion (whose row is marked deleted already) before its link.
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
          throw error;
        }
        staged.push({ objectKey, size, modifiedAt });
      }
    });
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  const manifest: BackupManifest = { format: 1, createdAt: new Date().toISOString(), version, storage: storage.backend, objects: staged.length };
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  const entries: TarEntry[] = [
    { name: MANIFEST, size: manifestBytes.length, modifiedAt: new Date(manifest.createdAt), body: () => manifestBytes },
    { name: DATABASE, size: archive.length, modifiedAt: new Date(manifest.createdAt), body: () => archive },
    ...staged.map(({ objectKey, size, modifiedAt }) => ({
      name: `${OBJECTS}/${objectKey}`,
      size,
      modifiedAt,
      body: () => createReadStream(join(staging, objectKey)),
    })),
  ];
  const stream = tarStream(entries);
  stream.once('close', () => void rm(staging, { recursive: true, force: true }));
  return { stream, manifest };
}

/** What a restore wrote. */
export interface RestoreSummary {
  manifest: BackupManifest;
  objects: number;
}

/**
 * Restores a backup archive (from `backupStream`) into the data directory `dataDir`, which must hold
 * no database and no stored objects yet: a restore never merges into or overwrites a deployment.
 */
export async function restoreBackup(archivePath: string, dataDir: string): Promise<RestoreSummary> {
  const objectsDir = join(dataDir, OBJECTS);
  if (
    await stat(objectsDir).then(
      (info) => info.isDirectory(),
      () => false,
    )
  )
    throw new Error(`${objectsDir} exists: restore into a data directory without stored files`);
  let manifest: BackupManifest | undefined;
  let databaseRestored = false;
  let objects = 0;
  for await (const entry of readTar(archivePath)) {
    if (!manifest) {
      if (entry.name !== MANIFEST) throw new NotABackupError(`${archivePath} is not a Mirobody backup: it does not begin with ${MANIFEST}`);
      manifest = JSON.parse((await entry.read()).toString('utf8')) as BackupManifest;
      if (manifest.format !== 1) throw new NotABackupError(`${archivePath} is a backup of format ${String(manifest.format)}, which this version cannot read`);
    } else if (entry.name === DATABASE) {
      await restoreEmbeddedDatabase(dataDir, await entry.read());
      databaseRestored = true;
    } else if (OBJECT_ENTRY.test(entry.name)) {
      const target = join(dataDir, entry.name);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await pipeline(entry.stream(), createWriteStream(target, { flags: 'wx', mode: 0o600 }));
      objects++;
    } else throw new NotABackupError(`${archivePath} holds an entry no backup has: ${entry.name}`);
  }
  if (!manifest || !databaseRestored) throw new NotABackupError(`${archivePath} holds no database: was it cut short?`);
  if (objects !== manifest.objects) throw new NotABackupError(`${archivePath} holds ${objects} stored objects, its manifest ${manifest.objects}`);
  return { manifest, objects };
}
