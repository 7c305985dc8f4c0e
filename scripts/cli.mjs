#!/usr/bin/env node
// `npm run cli -- <command>`: runs the compiled CLI, building first only when a source file is
// newer than the build (quietly; the compiler's output is shown only if the build fails).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const cli = join(root, 'dist/apps/server/src/cli.js');
const BUILD_INPUTS = ['apps', 'libs', '.swcrc', 'package.json'];

function newestSourceChange(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return /\.spec\.ts$/.test(path) ? 0 : stats.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestSourceChange(join(path, name))));
}

const built = existsSync(cli) ? statSync(cli).mtimeMs : 0;
const changed = Math.max(
  ...BUILD_INPUTS.map((input) => join(root, input))
    .filter(existsSync)
    .map(newestSourceChange),
);
if (changed > built) {
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout}${build.stderr}\nThe build failed; the CLI did not run.\n`);
    process.exit(1);
  }
}
process.argv = [process.argv[0], cli, ...process.argv.slice(2)];
await import(pathToFileURL(cli).href);
