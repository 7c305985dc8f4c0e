import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryLockedError, lockDirectory } from './directory-lock.js';

/** The pid of a process that has exited, so no process holds it (pids are not reused this quickly). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('lockDirectory', () => {
  let parent: string;
  let directory: string;

  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'directory-lock-'));
    directory = join(parent, 'pg');
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('writes its pid beside the directory and removes the file on release', () => {
    const lock = lockDirectory(directory);
    expect(readFileSync(`${directory}.lock`, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    lock.release();
    expect(existsSync(`${directory}.lock`)).toBe(false);
    lockDirectory(directory).release();
  });

  it('refuses a second lock in this process until the first is released', () => {
    const lock = lockDirectory(directory);
    expect(() => lockDirectory(directory)).toThrow(DirectoryLockedError);
    lock.release();
  });

  it('refuses a lock held by another live process, naming the directory and its pid', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeFileSync(`${directory}.lock`, `${holder.pid}\n`);
      const attempt = () => lockDirectory(directory);
      expect(attempt).toThrow(`The embedded database in ${directory} is in use by another process (pid ${holder.pid})`);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('takes over a lock left by a process that no longer runs', () => {
    writeFileSync(`${directory}.lock`, `${deadPid()}\n`);
    const lock = lockDirectory(directory);
    expect(readFileSync(`${directory}.lock`, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('takes over a lock carrying its own pid that it did not take (a container restarted as pid 1)', () => {
    writeFileSync(`${directory}.lock`, `${process.pid}\n`);
    lockDirectory(directory).release();
  });

  it('takes over an unreadable lock file', () => {
    writeFileSync(`${directory}.lock`, 'garbage');
    lockDirectory(directory).release();
  });
});
