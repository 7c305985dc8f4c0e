import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { AuthModule } from '@app/auth';
import { CommonModule, resourceMetadataUrl } from '@app/common';
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
        loggingModule(config.LOG_LEVEL),
        CommonModule.forRoot(config.common),
        DatabaseModule.forRoot({ url: config.DATABASE_URL, dataDir: config.DATA_DIR }),
        TerminusModule,
        McpModule.forRoot({
          serverInfo: { name: 'mirobody', version: config.version },
          ...config.mcp,
          resourceMetadataUrl: resourceMetadataUrl(config.PUBLIC_BASE_URL),
        }),
        AuthModule.forRoot(config),
        ToolsModule.forRoot(config),
        ...(extensions.imports ?? []),
      ],
      controllers: [HealthController],
      providers: [GracefulShutdown],
    };
  }
}
