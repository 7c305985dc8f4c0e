import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileBody, startWriters, uploadNumber } from '../../../bench/writers.mjs';
import { runCli } from '../src/cli.js';
import { expectAdminOnly, restCall } from './support/admin-calls.js';
import { signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { startApp, type RunningApp } from './support/test-app.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/test-database.js';

/**
 * A backup taken while writers keep the server busy, restored into a fresh data directory (embedded
 * database, through the server: `cli backup` / `cli restore`) or a fresh database (PostgreSQL:
 * pg_dump, pg_restore and a copy of the local files, as docs/operations.md says): the restored
 * deployment has every write acknowledged before the backup began, and every file's bytes.
 */
const run = promisify(execFile);
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' };
const WRITERS = 8;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let source: RunningApp;
let writerToken: string;
let adminToken: string;
const scratch = mkdtempSync(join(tmpdir(), 'mirobody-backup-'));

beforeAll(async () => {
  source = await startApp(ENV);
  writerToken = await signHs256(TEST_JWT_SECRET, { sub: 'backup-writer' });
  adminToken = await runCli(['token', '--sub', 'backup-admin', '--admin'], { ...ENV, DATA_DIR: source.dataDir });
}, 120_000);

afterAll(async () => {
  await source?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const origin = (app: RunningApp) => app.url.origin;

/** The memory ids the writer's export lists, and its files by key with their names. */
async function contents(app: RunningApp): Promise<{ memories: Set<string>; files: Map<string, string> }> {
  const headers = { authorization: `Bearer ${writerToken}` };
  const exported = (await (await fetch(`${origin(app)}/api/memories/export`, { headers })).json()) as { memories: { id: string }[] };
  const files = new Map<string, string>();
  for (let cursor: string | undefined; ;) {
    const page = (await (await fetch(`${origin(app)}/api/files?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers })).json()) as {
      items: { fileKey: string; filename: string }[];
      nextCursor: string | null;
    };
    for (const file of page.items) files.set(file.fileKey, file.filename);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return { memories: new Set(exported.memories.map((memory) => memory.id)), files };
}

/** Resolves once `reached()` holds, checking every 50 ms; fails after 60 s (a load that writes nothing proves nothing). */
async function until(what: string, reached: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 60_000; !reached(); await pause(50)) if (Date.now() > deadline) throw new Error(`Gave up waiting: ${what}`);
}

/**
 * Runs `backup` while writers keep the server busy (some memories and files acknowledged before it,
 * more after it began) and returns what was acknowledged before it began: the writers' lists grow
 * in the order the server acknowledged the writes.
 */
async function backupUnderLoad(backup: () => Promise<void>) {
  const writers = startWriters({ origin: origin(source), bearer: `Bearer ${writerToken}`, connections: WRITERS });
  const { acknowledged } = writers;
  try {
    await until('memories and files written before the backup', () => acknowledged.memories.length >= 20 && acknowledged.files.length >= 5);
    const before = { memories: acknowledged.memories.length, files: acknowledged.files.length };
    await backup();
    await until('writes acknowledged after the backup began', () => acknowledged.memories.length > before.memories && acknowledged.files.length > before.files);
    return { memories: acknowledged.memories.slice(0, before.memories), files: acknowledged.files.slice(0, before.files) };
  } finally {
    await writers.stop();
  }
}

/** Every write acknowledged before the backup is in the restored deployment, and every file there holds its bytes. */
async function expectRestored(restored: RunningApp, acknowledged: { memories: string[]; files: string[] }) {
  const { memories, files } = await contents(restored);
  expect(acknowledged.memories.filter((id) => !memories.has(id))).toEqual([]);
  expect(acknowledged.files.filter((key) => !files.has(key))).toEqual([]);
  const wrongBytes: string[] = [];
  for (const [key, filename] of files) {
    const response = await fetch(`${origin(restored)}/api/files/${key}/content`, { headers: { authorization: `Bearer ${writerToken}` } });
    if (response.status !== 200 || (await response.text()) !== fileBody(uploadNumber(filename))) wrongBytes.push(`${filename} (${response.status})`);
  }
  expect(wrongBytes).toEqual([]);
  // The check agrees: no file without its object, none whose digest differs.
  const report = JSON.parse(await runCli(['check-files', '--digests', '--url', origin(restored)], { ...ENV, DATA_DIR: restored.dataDir })) as {
    files: number;
    missing: { count: number };
    mismatched: { count: number };
  };
  expect(report).toMatchObject({ files: files.size, missing: { count: 0 }, mismatched: { count: 0 } });
}

describe('the backup and check routes', () => {
  it('refuse anonymous callers and users without the admin role', async () => {
    const user = await signHs256(TEST_JWT_SECRET, { sub: 'backup-not-admin' });
    await expectAdminOnly(source, 'POST', '/admin/backup', user);
    await expectAdminOnly(source, 'GET', '/admin/files/check', user);
  });

  it(TEST_DATABASE_URL ? 'send an admin to pg_dump on PostgreSQL' : 'let one backup run at a time', async () => {
    if (TEST_DATABASE_URL) {
      const answer = await restCall(source, 'POST', '/admin/backup', adminToken);
      expect({ status: answer.status, message: answer.json.message }).toEqual({ status: 409, message: expect.stringContaining('pg_dump') });
      return;
    }
    // The first is still being sent when the second comes: the archive is read only after both answered.
    const [first, second] = await Promise.all(
      [0, 1].map(() => fetch(`${origin(source)}/admin/backup`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` } })),
    );
    // Read through whatever the statuses: an archive left unread would hold the backup open.
    await Promise.all([first!.arrayBuffer(), second!.arrayBuffer()]);
    expect([first!.status, second!.status].sort()).toEqual([200, 409]);
  });

  it('answer a bad query with 400 naming the field', async () => {
    const answer = await restCall(source, 'GET', '/admin/files/check?digests=maybe', adminToken);
    expect({ status: answer.status, fields: Object.keys(answer.json.fields ?? {}) }).toEqual({ status: 400, fields: ['digests'] });
  });

  it('report a file whose object is gone, an object without a file and one whose bytes changed', async () => {
    // A deployment of its own, so that the load of the other tests does not show in its report.
    const app = await startApp(ENV);
    try {
      const upload = async (name: string) => {
        const form = new FormData();
        form.append('file', new Blob([`content of ${name}`]), name);
        const response = await fetch(`${origin(app)}/api/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${writerToken}` } });
        return ((await response.json()) as { fileKey: string }).fileKey;
      };
      const [kept, lost, altered] = [await upload('kept.txt'), await upload('lost.txt'), await upload('altered.txt')];
      const objects = join(app.dataDir, 'files', 'objects');
      rmSync(join(objects, lost.slice(0, 2), lost));
      // Same size, other bytes: only the digest tells.
      writeFileSync(join(objects, altered.slice(0, 2), altered), 'content of altereD.txt');
      mkdirSync(join(objects, 'zz'), { recursive: true });
      writeFileSync(join(objects, 'zz', 'orphan-object'), 'nobody points here');
      const quick = (await restCall(app, 'GET', '/admin/files/check', adminToken)).json;
      expect(quick).toMatchObject({ files: 3, objects: 3, digestsChecked: false, missing: { count: 1 }, orphans: { count: 1 }, mismatched: { count: 0 } });
      expect(quick.missing.files).toEqual([expect.objectContaining({ fileKey: lost })]);
      expect(quick.orphans.objects).toEqual([expect.objectContaining({ objectKey: 'zz/orphan-object', size: 18 })]);
      const thorough = (await restCall(app, 'GET', '/admin/files/check?digests=true', adminToken)).json;
      expect(thorough.mismatched.files).toEqual([expect.objectContaining({ fileKey: altered, problem: expect.stringContaining('SHA-256') })]);
      expect(JSON.stringify(thorough)).not.toContain(kept);
      await expect(runCli(['check-files', '--url', origin(app)], { ...ENV, DATA_DIR: app.dataDir })).rejects.toThrow(/"missing": \{\s+"count": 1/);
    } finally {
      await app.close();
    }
  }, 120_000);
});

describe.each([TEST_DATABASE_URL ? 'PostgreSQL' : 'the embedded database'])('a backup under load, on %s', (database) => {
  it('restores every acknowledged write and every file byte into a fresh deployment', async () => {
    const restoredDir = join(scratch, 'restored');
    let restoredDatabase: TestDatabase | undefined;
    let restored: RunningApp | undefined;
    try {
      let acknowledged: { memories: string[]; files: string[] };
      if (database === 'PostgreSQL') {
        const dump = join(scratch, 'database.dump');
        const files = join(scratch, 'files');
        acknowledged = await backupUnderLoad(async () => {
          // The database first, then the files: an upload stores its object before its row, so each row of the dump finds its object.
          await run('pg_dump', ['--format=custom', `--file=${dump}`, `--dbname=${source.databaseUrl}`]);
          cpSync(join(source.dataDir, 'files', 'objects'), files, { recursive: true });
        });
        restoredDatabase = await createTestDatabase(TEST_DATABASE_URL!);
        await run('pg_restore', ['--no-owner', `--dbname=${restoredDatabase.url}`, dump]);
        cpSync(files, join(restoredDir, 'files', 'objects'), { recursive: true });
        restored = await startApp({ ...ENV, DATA_DIR: restoredDir, DATABASE_URL: restoredDatabase.url });
      } else {
        const archive = join(scratch, 'backup.tar');
        acknowledged = await backupUnderLoad(async () => {
          expect(await runCli(['backup', '--out', archive, '--url', origin(source)], { ...ENV, DATA_DIR: source.dataDir })).toMatch(/^Wrote .*backup\.tar/);
        });
        expect(await runCli(['restore', '--from', archive], { ...ENV, DATA_DIR: restoredDir })).toMatch(/^Restored the backup of /);
        restored = await startApp({ ...ENV, DATA_DIR: restoredDir });
      }
      await expectRestored(restored, acknowledged);
    } finally {
      await restored?.close();
      await restoredDatabase?.drop();
      rmSync(restoredDir, { recursive: true, force: true });
    }
  }, 180_000);
});
