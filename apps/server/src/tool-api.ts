/**
 * The public API of tool directories: a deployed tool file imports everything it needs from
 * `mirobody` (`import { McpTool, Injectable, DataSource } from 'mirobody'`), which resolves to this
 * module, the very instance the server uses, so injection tokens are the server's own. Compiled
 * entry points map the specifier with module hooks (registerToolModuleHooks); Jest with
 * `moduleNameMapper`. Only add exports here: removing one breaks deployed tools.
 */
import 'reflect-metadata';

export { Inject, Injectable, Logger, Optional, UseGuards, UseInterceptors } from '@nestjs/common';
export { ConfigService } from '@nestjs/config';
export { DataSource } from 'typeorm';
export {
  Arg,
  CurrentUser,
  decorateToolClass,
  fail,
  McpCompletion,
  McpPrompt,
  McpResource,
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
export { MemoryStore, type RecalledMemory } from '@app/memory';
export { FilesService } from '@app/files';
