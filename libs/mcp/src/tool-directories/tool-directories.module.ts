import { Logger, Module, Scope, type DynamicModule, type ModuleMetadata, type Provider } from '@nestjs/common';
import { INQUIRER } from '@nestjs/core';
import { findToolFiles } from './find-tool-files.js';
import { importToolFiles } from './import-tool-files.js';

export interface ToolDirectoriesOptions {
  /** `MCP_TOOL_DIRS`, in order: the first directory that defines a tool name wins. */
  directories: readonly string[];
  /** Modules whose exported services directory tools may inject, besides the app's global ones (configuration, the database). */
  imports?: ModuleMetadata['imports'];
}

/** Each directory tool class that asks for a `Logger` gets one named after itself. */
const classNamedLogger = {
  provide: Logger,
  scope: Scope.TRANSIENT,
  inject: [INQUIRER],
  useFactory: (owner: object | undefined) => new Logger(owner?.constructor?.name ?? 'DirectoryTool'),
};

/**
 * Tools deployed as files: every exported `*Service` class of the files in `MCP_TOOL_DIRS` becomes a
 * provider of this module, so the app injects its services into it and the MCP explorer publishes
 * its tools, resources and prompts by the same rules as the packaged ones.
 */
@Module({})
export class ToolDirectoriesModule {
  static async register(options: ToolDirectoriesOptions): Promise<DynamicModule> {
    const logger = new Logger('ToolDirectories');
    const classes = await importToolFiles(findToolFiles(options.directories), logger);
    return { module: ToolDirectoriesModule, imports: options.imports ?? [], providers: [...(classes as Provider[]), classNamedLogger] };
  }
}
