#!/usr/bin/env node
// `npm run start:prod`: runs the compiled entry file in this very process, so that start:prod's node
// options apply to it and signals reach it directly: dist/apps/server/src/main.js, or the file
// SERVER_ENTRY names, compiled (see server-entry.mjs).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serverEntry } from './server-entry.mjs';

const entry = serverEntry(resolve(import.meta.dirname, '..'), 'compiled');
process.argv = [process.argv[0], entry, ...process.argv.slice(2)];
await import(pathToFileURL(entry).href);
