/**
 * The public API of tool directories: a deployed tool file imports everything it needs from
 * `mirobody` (`import { McpTool, Injectable, DataSource } from 'mirobody'`), which resolves to this
 * module, the very instance the server uses, so injection tokens are the server's own. Compiled
 * entry points map the specifier with module hooks (registerToolModuleHooks); the build maps it in
 * the repository's own files (.swcrc `paths`), so an entry file of your own imports `bootstrap` from
 * it too; Jest with `moduleNameMapper`. Only add exports here: removing one breaks deployed tools.
 */
import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppExtensions } from './app.module.js';

export { Inject, Injectable, Logger, Optional, UseGuards, UseInterceptors } from '@nestjs/common';
export { ConfigService } from '@nestjs/config';
export { DataSource } from 'typeorm';
export { InvalidInputError } from '@app/common';
export {
  Arg,
  CurrentUser,
  decorateToolClass,
  fail,
  McpCompletion,
  McpPrompt,
  McpResource,
  McpRequestState,
  McpRequestStateModule,
  McpResourceTemplate,
  McpTool,
  McpToolContext,
  McpTools,
  ok,
  SchemaProperty,
  ToolContext,
  type JsonSchema,
  type MethodDecorations,
  type OptionalToolClass,
  type SchemaValueOptions,
  type ToolClassDecorations,
  type ToolOptions,
  type ToolResult,
  type UserInfo,
} from '@app/mcp';
export { MemoryModule, MemoryStore, type RecalledMemory } from '@app/memory';
export { FilesModule, FilesService } from '@app/files';

export type { AppExtensions };

/**
 * Starts the server with your modules as `npm start` starts it (see bootstrap.ts), for an entry file
 * of your own. Imported when called: a tool file's import of `mirobody` (in the CLI's `tools`, say)
 * does not load the whole server.
 */
export async function bootstrap(extensions?: AppExtensions): Promise<NestFastifyApplication> {
  const { bootstrap: start } = await import('./bootstrap.js');
  return start(extensions);
}
