#!/usr/bin/env node
// `npm run start:dev`: compiles apps/ and libs/ to dist/ with SWC in watch mode and runs the server
// under `node --watch-path`, which restarts it after each change; Vite rebuilds the web console
// (apps/console, into dist/console) on each save, which the server serves as it is: reload the page. The server is
// apps/server/src/main.ts, or the entry file SERVER_ENTRY names (see server-entry.mjs). The packaged
// tools' types (metadata.ts) are written first and again after each change of a source.
//
// `nest start server --watch` cannot do this here: the monorepo compiles from `sourceRoot: "."`,
// and @swc/cli skips a watched path that starts with a dot, so no edit was ever recompiled.
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, watch } from 'node:fs';
import { join, resolve } from 'node:path';
import { serverEntry } from './server-entry.mjs';
import { generateToolTypes } from './tool-types.mjs';

const root = resolve(import.meta.dirname, '..');
const swcCli = join(root, 'node_modules/@swc/cli/bin/swc.js');
const entry = serverEntry(root, 'source');

/** Writes metadata.ts if a source changed; a failure (a file mid-edit) is reported, and the next save tries again. */
function readToolTypes() {
  try {
    process.stderr.write(`${generateToolTypes()}\n`);
  } catch (error) {
    process.stderr.write(`Tool types: ${error.stack ?? error}\n`);
  }
}
readToolTypes();
let typesTimer;
const sourceWatchers = ['apps', 'libs'].map((top) =>
  watch(join(root, top), { recursive: true }, (_event, file) => {
    if (!file?.endsWith('.ts') || file.endsWith('.spec.ts')) return;
    clearTimeout(typesTimer);
    typesTimer = setTimeout(readToolTypes, 200);
  }),
);

const compiler = spawn(process.execPath, [swcCli, 'apps', 'libs', 'metadata.ts', '-d', 'dist', '--config-file', '.swcrc', '--watch'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let server;
// The console's page is read at each request and never cached, so a rebuild shows at the next reload.
const consoleBuilder = spawn(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--watch', '-c', 'apps/console/vite.config.ts'], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
});

compiler.stdout.on('data', (chunk) => {
  const text = String(chunk);
  // Only the first full compilation is worth a line; per-file recompilations show as the server restarting.
  if (!server) process.stderr.write(text);
  if (!server && text.includes('Watching for file changes')) {
    // Worker files load as they are, as nest-cli.json's assets copy them for `npm run build`.
    for (const path of readdirSync(join(root, 'libs'), { recursive: true }).filter((file) => file.endsWith('.worker.mjs')))
      cpSync(join(root, 'libs', path), join(root, 'dist', 'libs', path));
    // Every change of a source writes metadata.ts again, and its compiled form is the last file a
    // change produces: restarting on it alone runs each edit once, with its own tool types.
    server = spawn(process.execPath, ['--watch-path', join(root, 'dist/metadata.js'), '--enable-source-maps', entry], { cwd: process.cwd(), stdio: 'inherit' });
    server.on('exit', (code) => stop(code ?? 0));
  }
});
compiler.on('exit', (code) => {
  if (!stopping) {
    process.stderr.write(`the SWC compiler stopped (code ${code})\n`);
    stop(1);
  }
});

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const watcher of sourceWatchers) watcher.close();
  clearTimeout(typesTimer);
  compiler.kill('SIGTERM');
  consoleBuilder.kill('SIGTERM');
  server?.kill('SIGTERM');
  process.exitCode = code;
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(0));
