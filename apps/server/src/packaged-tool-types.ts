import { loadToolTypes, type PluginMetadata } from '@app/mcp';

/**
 * `metadata.ts` at the project's root (`dist/metadata.js` once built): the tool types of the
 * packaged tools, which scripts/tool-types.mjs writes for `npm run build`, `npm run start:dev` and
 * Jest, and `nest start -b swc --type-check` writes with the plugin in nest-cli.json.
 */
const METADATA_MODULE = '../../../metadata.js';

/**
 * Attaches the packaged tools' types to their classes before Nest explores them. A build with tsc
 * (`nest build -b tsc`) has no metadata file: its plugin put the types in the classes themselves.
 * Without either, a tool whose parameters carry no @Arg stops start-up, naming the parameter.
 */
export async function loadPackagedToolTypes(): Promise<number> {
  let metadata: { default: PluginMetadata };
  try {
    // A variable, not a literal: the file exists only once generated, which type-checking must not require.
    const specifier: string = METADATA_MODULE;
    metadata = await import(specifier);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  return loadToolTypes(metadata.default);
}

const isMissing = (error: unknown) =>
  error instanceof Error &&
  'code' in error &&
  error.code === 'ERR_MODULE_NOT_FOUND' &&
  error.message.includes(new URL(METADATA_MODULE, import.meta.url).pathname);
