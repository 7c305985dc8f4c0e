import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * Creating an embedded database (initdb) takes PGlite several seconds, reopening one well under
 * one: a test run creates one empty database and each app it boots gets a copy.
 */
const TEMPLATE_ENV = 'MIROBODY_PGLITE_TEMPLATE';

/** Jest's globalSetup, run once in the parent process; the workers inherit its environment. */
export default async function createPGliteTemplate(): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return;
  const template = mkdtempSync(join(tmpdir(), 'mirobody-pglite-template-'));
  process.on('exit', () => rmSync(template, { recursive: true, force: true }));
  const db = await PGlite.create({ dataDir: template });
  await db.close();
  process.env[TEMPLATE_ENV] = template;
}

/** Puts an empty embedded database where the server looks for it, `${dataDir}/pg`; without a template the server creates one. */
export function seedEmbeddedDatabase(dataDir: string): void {
  const template = process.env[TEMPLATE_ENV];
  if (template && existsSync(template)) cpSync(template, join(dataDir, 'pg'), { recursive: true });
}
