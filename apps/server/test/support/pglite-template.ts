import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * Creating an embedded database (initdb) takes PGlite several seconds, reopening one well under
 * one: a test run creates one empty database and each app it boots gets a copy.
 */
const TEMPLATE_ENV = 'MIROBODY_PGLITE_TEMPLATE';

/**
 * How long the template may take (it takes about 6 s). Once, in CI, `PGlite.create` here never
 * settled and the run waited, idle, until it was killed; past this, the run goes on without a
 * template (each app then creates its own database, slower) rather than hang.
 */
const TEMPLATE_TIMEOUT_MS = 90_000;

/**
 * Jest's globalSetup, run once in the parent process (as CommonJS: it imports nothing of the
 * project's); the workers inherit its environment. It also writes the tool types of apps/, libs/
 * and examples/ into metadata.jest.ts (kept when current), as the build writes those of apps/ and
 * libs/ into metadata.ts, and builds the web console the browser tests open (unless current).
 */
export default async function globalSetup(): Promise<void> {
  process.stderr.write(execFileSync(process.execPath, ['scripts/tool-types.mjs', '--examples'], { encoding: 'utf8' }));
  ensureConsoleBuilt();
  if (!process.env.TEST_DATABASE_URL) await createPGliteTemplate();
}

async function createPGliteTemplate(): Promise<void> {
  const template = mkdtempSync(join(tmpdir(), 'mirobody-pglite-template-'));
  process.on('exit', () => rmSync(template, { recursive: true, force: true }));
  const created = (async () => {
    const db = await PGlite.create({ dataDir: template });
    await db.close();
    return true;
  })();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(resolve, TEMPLATE_TIMEOUT_MS, false)));
  const ready = await Promise.race([created, timedOut]).finally(() => clearTimeout(timer));
  if (ready) process.env[TEMPLATE_ENV] = template;
  else process.stderr.write(`No PGlite template after ${TEMPLATE_TIMEOUT_MS / 1000} s: each test app creates its own embedded database\n`);
}

/** Puts an empty embedded database where the server looks for it, `${dataDir}/pg`; without a template the server creates one. */
export function seedEmbeddedDatabase(dataDir: string): void {
  const template = process.env[TEMPLATE_ENV];
  if (template && existsSync(template)) cpSync(template, join(dataDir, 'pg'), { recursive: true });
}

function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

/**
 * Builds the web console (Vite, into dist/console) unless the build is newer than every file of
 * apps/console: the browser tests drive the console as `npm run build` makes it. From the
 * project's root, where Jest runs.
 */
function ensureConsoleBuilt(root = process.cwd()): void {
  const sources = resolve(root, 'apps/console');
  const page = resolve(root, 'dist/console/index.html');
  if (existsSync(page) && statSync(page).mtimeMs > newestChange(sources)) return;
  execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '-c', join(sources, 'vite.config.ts')], {
    cwd: root,
    stdio: 'inherit',
  });
}
