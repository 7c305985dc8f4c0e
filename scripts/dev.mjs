#!/usr/bin/env node
// `npm run start:dev`: compiles apps/ and libs/ to dist/ with SWC in watch mode and runs the server
// under `node --watch`, which restarts it whenever a compiled file it loaded changes. The server is
// apps/server/src/main.ts, or the entry file SERVER_ENTRY names (see server-entry.mjs).
//
// `nest start server --watch` cannot do this here: the monorepo compiles from `sourceRoot: "."`,
// and @swc/cli skips a watched path that starts with a dot, so no edit was ever recompiled.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { serverEntry } from './server-entry.mjs';

const root = resolve(import.meta.dirname, '..');
const swcCli = join(root, 'node_modules/@swc/cli/bin/swc.js');
const entry = serverEntry(root, 'source');

const compiler = spawn(process.execPath, [swcCli, 'apps', 'libs', '-d', 'dist', '--config-file', '.swcrc', '--watch'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let server;

compiler.stdout.on('data', (chunk) => {
  const text = String(chunk);
  // Only the first full compilation is worth a line; per-file recompilations show as the server restarting.
  if (!server) process.stderr.write(text);
  if (!server && text.includes('Watching for file changes')) {
    server = spawn(process.execPath, ['--watch', '--enable-source-maps', entry], { cwd: process.cwd(), stdio: 'inherit' });
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
  compiler.kill('SIGTERM');
  server?.kill('SIGTERM');
  process.exitCode = code;
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(0));
