import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes a generated credential file (mode 0600) unless it exists: written aside, then linked
 * into place, since linking fails when the file exists, so of two processes starting at once one
 * publishes its file whole and both read that one.
 */
export function publishOnce(dataDir: string, path: string, content: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, content, { mode: 0o600 });
  try {
    linkSync(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}
