import { pathToFileURL } from 'node:url';
import { TOOL_CLASS_SUFFIX } from '../explorer/describe-provider.js';
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

function isServiceClass(value: unknown): value is Function {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value)) && value.name.endsWith(TOOL_CLASS_SUFFIX);
}

/**
 * Imports each file and returns the classes it exports whose name ends in `Service`, each marked
 * with where it came from. A file that fails to import (a syntax error, a throw at the top level,
 * a missing import) is logged and skipped; the others still load.
 */
export async function importToolFiles(files: readonly ToolFile[], log: ToolLog): Promise<Function[]> {
  // A class a neighbour re-exports is still one provider, from the first file that exports it.
  const classes = new Set<Function>();
  for (const { directory, file, rank } of files) {
    let exported: Record<string, unknown>;
    try {
      exported = await import(pathToFileURL(file).href);
    } catch (error) {
      log.error(importErrorMessage(file, error instanceof Error ? error.message : String(error)));
      continue;
    }
    const services = [...new Set(Object.values(exported).filter(isServiceClass))];
    if (services.length === 0) log.log(`No tool classes in ${file}: export a class whose name ends in "${TOOL_CLASS_SUFFIX}"`);
    for (const service of services.filter((candidate) => !classes.has(candidate))) {
      markOrigin(service, { kind: 'directory', directory, file, rank });
      classes.add(service);
    }
  }
  return [...classes];
}
