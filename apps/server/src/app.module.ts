import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { AUTH_MIGRATIONS, AuthModule } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { McpModule } from '@app/mcp';
import { ToolsModule } from '@app/tools';
import { loadAppConfig, type AppConfig } from './config.js';
import { GracefulShutdown } from './graceful-shutdown.js';
import { HealthController } from './health.controller.js';
import { loggingModule } from './logging.js';

export interface AppExtensions {
  /** Modules of your own whose `*Service` providers add tools, resources and prompts. */
  imports?: ModuleMetadata['imports'];
}

/** The deployable server: configuration, logs, the database, health checks, the MCP endpoint and the built-in tools. */
@Module({})
export class AppModule {
  static register(config: AppConfig = loadAppConfig(process.env), extensions: AppExtensions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => config] }),
        loggingModule(config.LOG_LEVEL, config.LOG_FORMAT),
        DatabaseModule.forRoot({ url: config.DATABASE_URL, dataDir: config.DATA_DIR, migrations: [...AUTH_MIGRATIONS] }),
        TerminusModule,
        McpModule.forRoot({
          serverInfo: { name: 'mirobody', version: config.version },
          sessionIdleMs: config.MCP_SESSION_IDLE_SECONDS * 1000,
          maxSessions: config.MCP_MAX_SESSIONS,
          // Without a configured public address, the 401 names the metadata at the address the client used.
          resourceMetadataUrl: `${config.PUBLIC_BASE_URL_CONFIGURED ? config.PUBLIC_BASE_URL : ''}/.well-known/oauth-protected-resource`,
          ...(config.MCP_SESSION_SECRET ? { sessionSecret: config.MCP_SESSION_SECRET } : {}),
          ...(config.MCP_ALLOWED_HOSTS ? { allowedHostnames: config.MCP_ALLOWED_HOSTS } : {}),
        }),
        AuthModule.register(config),
        ToolsModule.register(config),
        ...(extensions.imports ?? []),
      ],
      controllers: [HealthController],
      providers: [GracefulShutdown],
    };
  }
}
