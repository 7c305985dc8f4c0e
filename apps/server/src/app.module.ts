import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { McpModule } from '@app/mcp';
import { ToolsModule } from '@app/tools';
import { loadAppConfig, type AppConfig } from './config.js';

export interface AppExtensions {
  /** Modules of your own whose `*Service` providers add tools, resources and prompts. */
  imports?: ModuleMetadata['imports'];
}

/** The deployable server: configuration, the MCP endpoint and the built-in tools. */
@Module({})
export class AppModule {
  static register(config: AppConfig = loadAppConfig(process.env), extensions: AppExtensions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => config] }),
        McpModule.forRoot({
          serverInfo: { name: 'mirobody', version: config.version },
          sessionIdleMs: config.MCP_SESSION_IDLE_SECONDS * 1000,
          maxSessions: config.MCP_MAX_SESSIONS,
          ...(config.MCP_SESSION_SECRET ? { sessionSecret: config.MCP_SESSION_SECRET } : {}),
          ...(config.MCP_ALLOWED_HOSTS ? { allowedHostnames: config.MCP_ALLOWED_HOSTS } : {}),
        }),
        ToolsModule.register(config),
        ...(extensions.imports ?? []),
      ],
    };
  }
}
