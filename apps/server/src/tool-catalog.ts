import { MODULE_METADATA } from '@nestjs/common/constants.js';
import type { DynamicModule, Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { findToolFiles, importToolFiles, offlineCatalog, type CatalogFormat, type ExploreLog, type ToolCatalog } from '@app/mcp';
import { ToolsModule } from '@app/tools';
import type { AppConfig } from './config.js';
import { loadPackagedToolTypes } from './packaged-tool-types.js';

type ModuleRef = Function | DynamicModule | Promise<DynamicModule> | undefined;

/** Every class a module and the modules it imports provide, read from their metadata without building them. */
async function providerClasses(root: ModuleRef, seen = new Set<unknown>()): Promise<Function[]> {
  const module = await root;
  if (!module || seen.has(module)) return [];
  seen.add(module);
  const dynamic = typeof module === 'function' ? undefined : module;
  const moduleClass = typeof module === 'function' ? module : module.module;
  const providers: Provider[] = [...(Reflect.getMetadata(MODULE_METADATA.PROVIDERS, moduleClass) ?? []), ...(dynamic?.providers ?? [])];
  const imports: ModuleRef[] = [...(Reflect.getMetadata(MODULE_METADATA.IMPORTS, moduleClass) ?? []), ...((dynamic?.imports ?? []) as ModuleRef[])];
  const classes = providers.flatMap((provider): Function[] =>
    typeof provider === 'function' ? [provider] : 'useClass' in provider ? [provider.useClass] : [],
  );
  const nested = await Promise.all(imports.map((imported) => providerClasses(imported, seen)));
  return [...classes, ...nested.flat()];
}

/**
 * The tools a server started with this configuration would publish to `agent`: the packaged tool
 * classes and those of `MCP_TOOL_DIRS`, described without a database or a running server.
 */
export async function catalogFromConfig(config: AppConfig, format: CatalogFormat, agent: string | undefined, log: ExploreLog): Promise<ToolCatalog> {
  await loadPackagedToolTypes();
  const fromDirectories = await importToolFiles(findToolFiles(config.toolDirectories.directories), log);
  const packaged = await providerClasses(ToolsModule);
  return offlineCatalog(
    { classes: [...fromDirectories, ...packaged], config: new ConfigService(config), agentTools: config.mcp.agentTools, log },
    format,
    agent,
  );
}
