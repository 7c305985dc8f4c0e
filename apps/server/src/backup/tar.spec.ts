import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NotABackupError, readTar, tarStream, type TarEntry } from './tar.js';

const entry = (name: string, bytes: Buffer | string, asStream = false): TarEntry => {
  const body = Buffer.from(bytes);
  return { name, size: body.length, modifiedAt: new Date('2026-01-02T03:04:05Z'), body: () => (asStream ? Readable.from([body]) : body) };
};

async function written(entries: TarEntry[]): Promise<{ dir: string; archive: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mirobody-tar-'));
  const archive = join(dir, 'archive.tar');
  await pipeline(tarStream(entries), createWriteStream(archive));
  return { dir, archive };
}

async function readAll(archive: string): Promise<Record<string, string>> {
  const read: Record<string, string> = {};
  for await (const { name, read: bytes } of readTar(archive)) read[name] = (await bytes()).toString();
  return read;
}

describe('backup archives', () => {
  it('are tar archives the system tar lists and unpacks, and read back entry by entry', async () => {
    const { dir, archive } = await written([entry('manifest.json', '{}'), entry('empty', ''), entry('files/objects/ab/abc', 'x'.repeat(1000), true)]);
    try {
      expect(execFileSync('tar', ['-tf', archive], { encoding: 'utf8' }).trim().split('\n')).toEqual(['manifest.json', 'empty', 'files/objects/ab/abc']);
      execFileSync('tar', ['-xf', archive, '-C', dir]);
      expect(readFileSync(join(dir, 'files/objects/ab/abc'), 'utf8')).toBe('x'.repeat(1000));
      expect(await readAll(archive)).toEqual({ 'manifest.json': '{}', empty: '', 'files/objects/ab/abc': 'x'.repeat(1000) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuse an archive cut short, and a file that is no archive', async () => {
    const { dir, archive } = await written([entry('a', 'a'.repeat(2000)), entry('b', 'b')]);
    try {
      truncateSync(archive, 1500);
      await expect(readAll(archive)).rejects.toThrow(NotABackupError);
      writeFileSync(archive, 'x'.repeat(4096));
      await expect(readAll(archive)).rejects.toThrow(/not a tar archive/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fail when a body is not the size announced, rather than shift the entries after it', async () => {
    const short: TarEntry = { ...entry('a', 'abc'), size: 4 };
    const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
    await expect(pipeline(tarStream([short]), discard)).rejects.toThrow(/held 3 bytes, not the 4 announced/);
  });
});
