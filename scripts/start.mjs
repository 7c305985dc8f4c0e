#!/usr/bin/env node
// `npm run start:prod`: runs the compiled entry file in this very process, so that start:prod's node
// options apply to it and signals reach it directly: dist/apps/server/src/main.js, or the file
// SERVER_ENTRY names, compiled (see server-entry.mjs).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serverEntry } from './server-entry.mjs';

// glibc's allocator as the Docker image sets it (docs/operations.md#memory): two arenas instead of
// up to eight per core, which the threads of V8, libuv and the embedded database's worker each
// leave partly filled; and its mmap and trim thresholds fixed at 128 KiB, which glibc otherwise
// raises as large blocks are freed (up to 32 MiB): blocks that size then come from its heaps, and
// up to twice that of free memory stays with the process. glibc reads these once, as the process starts, so this process replaces itself (same
// pid, same options) with one that has them. A value set by the user is kept; Node before 22.15
// has no execve and runs on as it is.
const MALLOC_SETTINGS = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '131072' };
const mallocUnset = Object.keys(MALLOC_SETTINGS).some((name) => process.env[name] === undefined);
if (mallocUnset && process.platform === 'linux' && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...MALLOC_SETTINGS, ...process.env });
}

const entry = serverEntry(resolve(import.meta.dirname, '..'), 'compiled');
process.argv = [process.argv[0], entry, ...process.argv.slice(2)];
await import(pathToFileURL(entry).href);
