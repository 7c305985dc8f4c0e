import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { McpExplorer } from './explorer/mcp-explorer.service.js';
import { McpHttpService } from './http/mcp-http.service.js';
import { McpRoute } from './http/mcp-route.js';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from './mcp.options.js';
import { McpRegistry } from './registry/mcp-registry.js';
import { McpRequestStateModule } from './server/mcp-request-state.module.js';
import { McpServerFactory } from './server/mcp-server.factory.js';

export type McpModuleSettings = Pick<McpModuleOptions, 'serverInfo'> & Partial<McpModuleOptions>;

/** `imports`: the modules that provide what `/mcp` takes from other libs (`CALLER_RESOLVER`, `MCP_RATE_LIMIT`, `MCP_CALL_OBSERVER`); the app passes `AuthModule`. */
export interface McpModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  inject?: unknown[];
  useFactory: (...args: never[]) => McpModuleSettings | Promise<McpModuleSettings>;
}

/** Defaults for everything but the server's identity. */
export function resolveMcpOptions(settings: McpModuleSettings): McpModuleOptions {
  return {
    allowedHostnames: localhostAllowedHostnames(),
    sessionIdleMs: 30 * 60 * 1000,
    maxSessions: 10_000,
    fastLane: true,
    maxSessionsPerCaller: 100,
    sessionMaxAgeMs: 24 * 60 * 60 * 1000,
    ...settings,
  };
}

/**
 * Discovers `@McpTool` providers and serves them, with resources and prompts, at `/mcp`. Imported
 * by the app alone, which configures it; a tool module needs nothing of it but
 * `McpRequestStateModule` (for `McpRequestState`).
 */
@Module({})
export class McpModule {
  /** `imports`: as in `forRootAsync`. */
  static forRoot(settings: McpModuleSettings, imports: ModuleMetadata['imports'] = []): DynamicModule {
    return McpModule.forRootAsync({ imports, useFactory: () => settings });
  }

  static forRootAsync(options: McpModuleAsyncOptions): DynamicModule {
    return {
      module: McpModule,
      imports: [DiscoveryModule, McpRequestStateModule, ...(options.imports ?? [])],
      providers: [
        {
          provide: MCP_MODULE_OPTIONS,
          inject: (options.inject ?? []) as never[],
          useFactory: async (...args: never[]) => resolveMcpOptions(await options.useFactory(...args)),
        },
        McpExplorer,
        McpRegistry,
        McpServerFactory,
        McpHttpService,
        McpRoute,
      ],
      exports: [McpRegistry, McpRequestStateModule, McpServerFactory, McpHttpService],
    };
  }
}
