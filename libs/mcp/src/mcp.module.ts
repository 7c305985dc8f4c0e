import { randomBytes } from 'node:crypto';
import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Signer } from '@app/common';
import { localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { McpExplorer } from './explorer/mcp-explorer.service.js';
import { McpHttpService } from './http/mcp-http.service.js';
import { McpRoute } from './http/mcp-route.js';
import { MCP_MODULE_OPTIONS, MCP_SIGNER, type McpModuleOptions } from './mcp.options.js';
import { McpRegistry } from './registry/mcp-registry.js';
import { McpRequestState } from './server/mcp-request-state.js';
import { McpServerFactory } from './server/mcp-server.factory.js';

export type McpModuleSettings = Pick<McpModuleOptions, 'serverInfo'> & Partial<McpModuleOptions>;

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

/** Discovers `@McpTool` providers and serves them, with resources and prompts, at `/mcp`. */
@Module({})
export class McpModule {
  static forRoot(settings: McpModuleSettings): DynamicModule {
    return McpModule.forRootAsync({ useFactory: () => settings });
  }

  static forRootAsync(options: McpModuleAsyncOptions): DynamicModule {
    return {
      module: McpModule,
      global: true,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers: [
        {
          provide: MCP_MODULE_OPTIONS,
          inject: (options.inject ?? []) as never[],
          useFactory: async (...args: never[]) => resolveMcpOptions(await options.useFactory(...args)),
        },
        {
          provide: MCP_SIGNER,
          inject: [{ token: Signer, optional: true }],
          // Without the app's signer (a test module of the MCP lib alone) signatures hold for this process only.
          useFactory: (signer?: Signer) => signer ?? new Signer(randomBytes(32).toString('hex')),
        },
        McpExplorer,
        McpRegistry,
        McpRequestState,
        McpServerFactory,
        McpHttpService,
        McpRoute,
      ],
      exports: [McpRegistry, McpRequestState, McpServerFactory, McpHttpService],
    };
  }
}
