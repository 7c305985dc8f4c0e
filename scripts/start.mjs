#!/usr/bin/env node
// `npm run start:prod`: runs the compiled entry file in this very process, so that start:prod's node
// options apply to it and signals reach it directly: dist/apps/server/src/main.js, or the file
// SERVER_ENTRY names, compiled (see server-entry.mjs).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serverEntry } from './server-entry.mjs';

// glibc's allocator keeps up to eight arenas per core, which the threads of V8, libuv and the
// embedded database's worker each leave partly filled; two keep the server's RSS lower, as in the
// Docker image (docs/operations.md#memory). glibc reads the variable once, as the process starts,
// so this process replaces itself (same pid, same options) with one that has it. A value set by
// the user is kept; Node before 22.15 has no execve and runs on as it is.
if (process.env.MALLOC_ARENA_MAX === undefined && process.platform === 'linux' && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, MALLOC_ARENA_MAX: '2' });
}

const entry = serverEntry(resolve(import.meta.dirname, '..'), 'compiled');
process.argv = [process.argv[0], entry, ...process.argv.slice(2)];
await import(pathToFileURL(entry).href);
