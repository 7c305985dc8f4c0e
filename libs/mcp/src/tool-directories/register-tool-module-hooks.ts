import { register } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolModuleHooksData } from './tool-module-hooks.js';

/**
 * Installs the module hooks tool directories need (`mirobody` imports, `.ts` files, ESM `.js`).
 * Call once (a no-op without directories), before the app module is built, from a compiled entry point (main, CLI); under Jest
 * its own module system plays this part (see jest.config.js).
 */
export function registerToolModuleHooks(publicEntry: URL, directories: readonly string[]): void {
  // Hooks see every module the process loads afterwards: without tool directories, stay out of the way.
  if (directories.length === 0) return;
  const data: ToolModuleHooksData = {
    publicEntry: publicEntry.href,
    directories: directories.map((directory) => pathToFileURL(resolve(directory)).href.replace(/\/?$/, '/')),
  };
  register(new URL('./tool-module-hooks.js', import.meta.url), { data });
}
