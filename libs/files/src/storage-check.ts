import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, type Repository } from 'typeorm';
import { StoredFileEntity } from './entities/stored-file.entity.js';
import { FILE_STORAGE, type FileStorage } from './storage/file-storage.js';

/** Rows read per query while the check walks the `files` table. */
const ROWS_PER_QUERY = 1000;
/** Each list of the report names at most this many; its count says how many there are. */
const LISTED = 100;

export interface StorageCheckReport {
  /** Files checked: the rows of files not being deleted. */
  files: number;
  /** Objects the storage holds. */
  objects: number;
  /** Whether each object's SHA-256 was computed and compared with its row's (it reads every byte). */
  digestsChecked: boolean;
  /** Files whose object the storage lacks: their content is lost. */
  missing: { count: number; files: { fileKey: string; userId: string; objectKey: string }[] };
  /** Objects no row points to: an upload under way, what a crash left (housekeeping removes those after FILES_CLEANUP_GRACE), or a restore from mismatched copies. */
  orphans: { count: number; objects: { objectKey: string; size: number; modifiedAt: string }[] };
  /** Files whose object differs from what the row recorded at upload: its size, or with `digests`, its SHA-256. */
  mismatched: { count: number; files: { fileKey: string; objectKey: string; problem: string }[] };
}

/** The first `LISTED` entries of a list, with its length. */
class Listing<T> {
  count = 0;
  readonly entries: T[] = [];

  add(entry: T): void {
    this.count++;
    if (this.entries.length < LISTED) this.entries.push(entry);
  }
}

/**
 * Compares the `files` table with the objects the storage holds, as an operator does after a restore
 * (the database and the storage are backed up by separate means, so either can lack what the other
 * has): files without their object, objects without a file, objects whose size or digest is not the
 * one recorded at upload. Files being deleted (`deleted_at` set) are left out: their object goes first.
 */
@Injectable()
export class StorageCheck {
  constructor(
    @InjectRepository(StoredFileEntity) private readonly files: Repository<StoredFileEntity>,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
  ) {}

  async run({ digests }: { digests: boolean }): Promise<StorageCheckReport> {
    // Every object by key first (a key and a size each), then the rows page by page against them.
    const objects = new Map<string, { size: number; modifiedAt: Date }>();
    for await (const { objectKey, size, modifiedAt } of this.storage.listObjects()) objects.set(objectKey, { size, modifiedAt });
    const objectCount = objects.size;
    const missing = new Listing<StorageCheckReport['missing']['files'][number]>();
    const mismatched = new Listing<StorageCheckReport['mismatched']['files'][number]>();
    let checked = 0;
    for (let after = '00000000-0000-0000-0000-000000000000'; ;) {
      const rows = await this.files.find({
        select: { id: true, fileKey: true, userId: true, objectKey: true, size: true, sha256: true, deletedAt: true },
        where: { id: MoreThan(after) },
        order: { id: 'ASC' },
        take: ROWS_PER_QUERY,
      });
      for (const row of rows) {
        const object = objects.get(row.objectKey);
        // An object a row points to is no orphan, even when the row's file is being deleted.
        objects.delete(row.objectKey);
        if (row.deletedAt) continue;
        checked++;
        if (!object) missing.add({ fileKey: row.fileKey, userId: row.userId, objectKey: row.objectKey });
        else if (object.size !== row.size)
          mismatched.add({ fileKey: row.fileKey, objectKey: row.objectKey, problem: `size ${object.size}, recorded ${row.size}` });
        else if (digests) {
          const digest = await this.digestOf(row.objectKey);
          if (digest !== row.sha256) mismatched.add({ fileKey: row.fileKey, objectKey: row.objectKey, problem: `SHA-256 ${digest}, recorded ${row.sha256}` });
        }
      }
      if (rows.length < ROWS_PER_QUERY) break;
      after = rows[rows.length - 1]!.id;
    }
    const orphans = new Listing<StorageCheckReport['orphans']['objects'][number]>();
    for (const [objectKey, { size, modifiedAt }] of objects) orphans.add({ objectKey, size, modifiedAt: modifiedAt.toISOString() });
    return {
      files: checked,
      objects: objectCount,
      digestsChecked: digests,
      missing: { count: missing.count, files: missing.entries },
      orphans: { count: orphans.count, objects: orphans.entries },
      mismatched: { count: mismatched.count, files: mismatched.entries },
    };
  }

  private async digestOf(objectKey: string): Promise<string> {
    const hash = createHash('sha256');
    for await (const chunk of await this.storage.get(objectKey)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }
}
