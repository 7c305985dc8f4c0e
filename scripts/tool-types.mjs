#!/usr/bin/env node
// Writes metadata.ts, the tool types of the packaged tools (apps/**, libs/**), for builds that
// compile with SWC: `npm run build` runs it before `nest build`, `npm run start:dev` when a source
// changes, and Jest's globalSetup before the tests (with `--examples`, into metadata.jest.ts: Jest
// also imports the tools of examples/ from their sources, which the build does not compile). It is what
// `nest start -b swc --type-check` does with the plugin in nest-cli.json, without type-checking the
// whole project first: one program of the files that declare tools, the plugin's ReadonlyVisitor,
// and Nest CLI's PluginMetadataGenerator to print the file.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');

/** The sources of `folders` without specs, tests and the console: for the build, what .swcrc compiles. */
function sourcesOf(folders) {
  const sources = [];
  for (const top of folders) {
    for (const entry of readdirSync(join(root, top), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      const posix = relative(root, path).split(sep).join('/');
      // The console (apps/console) is a browser app that Vite builds; it declares no tools.
      if (posix.startsWith('apps/console/')) continue;
      if (entry.isFile() && posix.endsWith('.ts') && !posix.endsWith('.d.ts') && !posix.endsWith('.spec.ts') && !posix.includes('/test/')) sources.push(path);
    }
  }
  return sources;
}

/** A file is current when it is newer than each source it was read from and than this script. */
function isCurrent(file, sources) {
  if (!existsSync(file)) return false;
  const written = statSync(file).mtimeMs;
  return [...sources, import.meta.filename].every((path) => statSync(path).mtimeMs < written);
}

/** Kept between runs of one process (start:dev), so that a run parses only the files that changed. */
let previousProgram;

/**
 * Writes the tool types unless they are current (or `force`), and returns what it did, for a log
 * line: those of apps/ and libs/ into metadata.ts, or with `examples` those of examples/ too into
 * metadata.jest.ts, Jest's own file (jest.config.js maps the app's import of metadata.js to it), so
 * that a build during a test run never takes the examples away from the tests.
 */
export function generateToolTypes({ force = false, examples = false } = {}) {
  const started = performance.now();
  const filename = examples ? 'metadata.jest.ts' : 'metadata.ts';
  const sources = sourcesOf(examples ? ['apps', 'libs', 'examples'] : ['apps', 'libs']);
  if (!force && isCurrent(join(root, filename), sources)) return `Tool types: ${filename} is current`;
  const { ReadonlyVisitor } = createRequire(import.meta.url)('../libs/mcp/plugin.cjs');
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  // Only files that declare tools are roots; the types they use come in through their imports.
  const roots = sources.filter((path) => readFileSync(path, 'utf8').includes('@McpTool'));
  const program = ts.createProgram({ rootNames: roots, options: { ...config.options, noEmit: true }, oldProgram: previousProgram });
  previousProgram = program;
  const visitor = new ReadonlyVisitor({ pathToSource: root });
  new PluginMetadataGenerator().generate({ visitors: [visitor], outputDir: root, filename, tsProgramRef: program });
  const classes = Object.values(visitor.collect())[0].reduce((count, [, found]) => count + Object.keys(found).length, 0);
  return `Tool types: read ${classes} tool class(es) of ${roots.length} file(s) into ${filename} in ${Math.round(performance.now() - started)} ms`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(generateToolTypes({ force: process.argv.includes('--force'), examples: process.argv.includes('--examples') }));
}
