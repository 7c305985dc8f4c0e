import { pathToFileURL } from 'node:url';
import { isToolClass, TOOL_CLASS_SUFFIX } from '../explorer/describe-provider.js';
import { TYPES_READ_MS_EXPORT } from './tool-module-hooks.js';
import { markOrigin } from './tool-origin.js';
import type { ToolFile } from './find-tool-files.js';

export interface ToolLog {
  log(message: string): void;
  error(message: string): void;
}

/** The message every failure to load a tool file starts with, so one grep finds them all. */
export function importErrorMessage(file: string, reason: string): string {
  return `Error importing tool module ${file}: ${reason}`;
}

function isExportedToolClass(value: unknown): value is Function {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value)) && isToolClass(value);
}

/**
 * Imports each file and returns the tool classes it exports (`@McpTools()` or `*Service`), each marked
 * with where it came from. A file that fails to import (a syntax error, a throw at the top level,
 * a missing import) is logged and skipped; the others still load.
 */
export async function importToolFiles(files: readonly ToolFile[], log: ToolLog): Promise<Function[]> {
  // A class a neighbour re-exports is still one provider, from the first file that exports it.
  const classes = new Set<Function>();
  const typesRead = { files: 0, ms: 0 };
  for (const { directory, file, rank } of files) {
    let exported: Record<string, unknown>;
    try {
      exported = await import(pathToFileURL(file).href);
    } catch (error) {
      log.error(importErrorMessage(file, error instanceof Error ? error.message : String(error)));
      continue;
    }
    if (typeof exported[TYPES_READ_MS_EXPORT] === 'number') {
      typesRead.files++;
      typesRead.ms += exported[TYPES_READ_MS_EXPORT];
    }
    const toolClasses = [...new Set(Object.values(exported).filter(isExportedToolClass))];
    if (toolClasses.length === 0) log.log(`No tool classes in ${file}: export a class marked @McpTools() or named *${TOOL_CLASS_SUFFIX}`);
    for (const toolClass of toolClasses.filter((candidate) => !classes.has(candidate))) {
      markOrigin(toolClass, { kind: 'directory', directory, file, rank });
      classes.add(toolClass);
    }
  }
  // The first file pays for parsing TypeScript's own declarations; the others reuse them.
  if (typesRead.files) log.log(`Read the tool types of ${typesRead.files} TypeScript file(s) in ${typesRead.ms} ms`);
  return [...classes];
}
