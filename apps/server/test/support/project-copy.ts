import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../../../..');

/**
 * A copy of the project (its sources and a link to node_modules) in a temporary directory, so that a
 * test can compile, edit and run it without touching the repository's own dist/ or sources while
 * other tests run.
 */
export function copyProject(prefix: string, { build = false }: { build?: boolean } = {}): string {
  const project = mkdtempSync(join(tmpdir(), prefix));
  for (const entry of ['apps', 'libs', 'scripts', '.swcrc', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'README.md']) {
    cpSync(join(root, entry), join(project, entry), { recursive: true, filter: (source) => !source.includes(join('apps', 'server', 'test')) });
  }
  symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'), 'dir');
  if (build) compileProject(project);
  return project;
}

/** Compiles a copy's apps/ and libs/ to its dist/ as the build does (the tool types, then SWC, no type check, then the worker files as nest-cli.json's assets). */
export function compileProject(project: string): void {
  for (const step of [
    ['scripts/tool-types.mjs'],
    ['node_modules/@swc/cli/bin/swc.js', 'apps', 'libs', 'metadata.ts', '-d', 'dist', '--config-file', '.swcrc'],
  ]) {
    const run = spawnSync(process.execPath, step, { cwd: project, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`compiling the copy failed at ${step[0]}:\n${run.stdout}${run.stderr}`);
  }
  const workers = (readdirSync(join(project, 'libs'), { recursive: true }) as string[]).filter((path) => path.endsWith('.worker.mjs'));
  for (const path of workers) cpSync(join(project, 'libs', path), join(project, 'dist', 'libs', path));
}
