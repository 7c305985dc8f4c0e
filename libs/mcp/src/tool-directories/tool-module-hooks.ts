/**
 * Node module hooks for tool directories, registered by `registerToolModuleHooks` before the app
 * loads (they run on Node's loader thread). They let a file in any directory:
 * - import the public tool API as `mirobody`, the same module instance the app uses (so its
 *   injection tokens are the app's own);
 * - be TypeScript: `.ts` is transpiled with @swc/core, decorator metadata kept, as the build does,
 *   and its tool methods' types and doc comments are read by the types plugin (`ToolTypesSource`);
 * - be an ES module even without a `package.json` saying `"type": "module"` next to it.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface ToolModuleHooksData {
  /** File URL of the public tool API module. */
  publicEntry: string;
  /** File URLs of the tool directories, each ending in `/`. */
  directories: string[];
}

type Resolved = { url: string; format?: string | null; shortCircuit?: boolean };
type Loaded = { format: string; source?: string | ArrayBuffer | Uint8Array; shortCircuit?: boolean };

export const PUBLIC_SPECIFIER = 'mirobody';

let settings: ToolModuleHooksData = { publicEntry: '', directories: [] };

export function initialize(data: ToolModuleHooksData): void {
  settings = data;
}

/** A tool directory's own files; packages installed beside them keep their own module format. */
const inToolDirectory = (url: string) => !url.includes('/node_modules/') && settings.directories.some((directory) => url.startsWith(directory));

export async function resolve(
  specifier: string,
  context: { parentURL?: string },
  nextResolve: (specifier: string, context?: object) => Promise<Resolved>,
): Promise<Resolved> {
  if (specifier === PUBLIC_SPECIFIER) return { url: settings.publicEntry, format: 'module', shortCircuit: true };
  const parent = context.parentURL;
  // TypeScript sources name their neighbours `./x.js`; in a tool directory that may be `./x.ts`.
  if (parent && inToolDirectory(parent) && specifier.startsWith('.') && specifier.endsWith('.js')) {
    const asTs = new URL(specifier.replace(/\.js$/, '.ts'), parent);
    if (!existsSync(new URL(specifier, parent)) && existsSync(asTs)) return { url: asTs.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url: string, context: object, nextLoad: (url: string, context?: object) => Promise<Loaded>): Promise<Loaded> {
  if (!url.startsWith('file:') || !inToolDirectory(url)) return nextLoad(url, context);
  const path = fileURLToPath(url);
  if (path.endsWith('.ts')) return { format: 'module', source: (await transpile(path)) + (await toolTypesStatements(path)), shortCircuit: true };
  if (path.endsWith('.js')) return { ...(await nextLoad(url, { ...context, format: 'module' })), format: 'module' };
  return nextLoad(url, context);
}

/** The same transform the build applies to the server's own sources. */
export async function transpile(path: string): Promise<string> {
  // Loaded only when a directory holds TypeScript.
  const { transform } = await import('@swc/core');
  const { code } = await transform(await readFile(path, 'utf8'), {
    filename: path,
    swcrc: false,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'es6' },
  });
  return code;
}

/** Exported by a transpiled tool file: how long reading its types took, which the import reports. */
export const TYPES_READ_MS_EXPORT = '__toolTypesReadMs';

let toolTypes: import('../types-plugin/tool-types-source.js').ToolTypesSource | undefined;

/** The types plugin's statements for a tool file, and the time they took as an export; loaded only for TypeScript files. */
async function toolTypesStatements(path: string): Promise<string> {
  const started = performance.now();
  toolTypes ??= new (await import('../types-plugin/tool-types-source.js')).ToolTypesSource();
  const statements = toolTypes.statementsFor(path);
  return `${statements}\nexport const ${TYPES_READ_MS_EXPORT} = ${Math.round(performance.now() - started)};\n`;
}
