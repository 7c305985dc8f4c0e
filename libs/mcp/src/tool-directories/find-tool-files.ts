import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** File endings a tool directory may hold; `.ts` is transpiled when loaded. */
export const TOOL_FILE_EXTENSIONS = ['.js', '.mjs', '.ts'] as const;

export interface ToolFile {
  /** The configured directory, made absolute. */
  directory: string;
  /** Absolute path of the file. */
  file: string;
  /** Position over all directories and files: lower loads first and wins a name. */
  rank: number;
}

/** A listed directory that does not exist or cannot be read: almost always a typo, so start-up stops. */
export class ToolDirectoryError extends Error {
  constructor(directory: string, problem: string) {
    super(`MCP_TOOL_DIRS: ${directory} ${problem}`);
    this.name = 'ToolDirectoryError';
  }
}

function isToolFileName(name: string): boolean {
  // `_helper.js` is a neighbour's shared module, `x.d.ts` a type declaration: neither is a tool.
  if (name.startsWith('_') || name.startsWith('.') || name.endsWith('.d.ts')) return false;
  return TOOL_FILE_EXTENSIONS.some((extension) => name.endsWith(extension));
}

/**
 * The tool files of each directory, in the directories' order and by name within one. Only files
 * directly in a listed directory count: sub-directories are never entered.
 */
export function findToolFiles(directories: readonly string[], cwd = process.cwd()): ToolFile[] {
  const found: ToolFile[] = [];
  for (const listed of directories) {
    const directory = resolve(cwd, listed);
    let names: string[];
    try {
      if (!statSync(directory).isDirectory()) throw new ToolDirectoryError(directory, 'is not a directory');
      names = readdirSync(directory);
    } catch (error) {
      if (error instanceof ToolDirectoryError) throw error;
      throw new ToolDirectoryError(directory, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    for (const name of names.filter(isToolFileName).sort()) {
      const file = join(directory, name);
      if (statSync(file).isFile()) found.push({ directory, file, rank: found.length });
    }
  }
  return found;
}
