import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Another live process holds the directory; start-up stops with this message. */
export class DirectoryLockedError extends Error {
  constructor(
    readonly directory: string,
    readonly holderPid: number | undefined,
  ) {
    super(
      `The embedded database in ${directory} is in use by ${holderPid === undefined ? 'another process' : `another process (pid ${holderPid})`}. ` +
        'Two processes on one DATA_DIR would each keep their own copy and lose the other one’s writes: ' +
        'stop that process, or give this one another DATA_DIR (or a DATABASE_URL).',
    );
    this.name = 'DirectoryLockedError';
  }
}

export interface DirectoryLock {
  /** Removes the lock file, if it is still ours; safe to call twice. */
  release(): void;
}

/** Directories locked by this process: a second pool here on the same directory is refused as well. */
const heldHere = new Set<string>();

const lockFileOf = (directory: string) => `${directory}.lock`;

function readHolder(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of another live process holding the directory's lock, if there is one. */
export function lockHolder(directory: string): number | undefined {
  const holder = readHolder(lockFileOf(directory));
  return holder !== undefined && holder !== process.pid && isRunning(holder) ? holder : undefined;
}

/**
 * An exclusive lock on a directory, as the file `<directory>.lock` holding the owner's pid.
 *
 * A lock whose pid no longer runs was left by a killed process and is taken over. A lock holding
 * this process's own pid but not taken by it is stale too: in a container the server is pid 1 on
 * every start, so the previous container's lock carries the same pid.
 */
export function lockDirectory(directory: string): DirectoryLock {
  if (heldHere.has(directory)) throw new DirectoryLockedError(directory, process.pid);
  const lockFile = lockFileOf(directory);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx' });
      heldHere.add(directory);
      return {
        release: () => {
          if (!heldHere.delete(directory)) return;
          if (readHolder(lockFile) === process.pid) rmSync(lockFile, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = lockHolder(directory);
    if (holder !== undefined) throw new DirectoryLockedError(directory, holder);
    rmSync(lockFile, { force: true });
  }
  throw new DirectoryLockedError(directory, readHolder(lockFile));
}
