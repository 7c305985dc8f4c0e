import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { AuthModule } from '@app/auth';
import { CommonModule, resourceMetadataUrl } from '@app/common';
import { DatabaseModule, DeploymentModule } from '@app/database';
import { ConversationsModule } from '@app/conversations';
import { FilesModule } from '@app/files';
import { HealthModule } from '@app/health';
import { McpApprovalsModule, McpModule, McpRequestStateModule, McpTasksModule, ToolDirectoriesModule } from '@app/mcp';
import { MemoryModule } from '@app/memory';
import { ConsoleSignInModule, OAuthModule } from '@app/oauth';
import { ToolsModule } from '@app/tools';
import { AdminToolsController } from './admin-tools.controller.js';
import { BackupModule } from './backup/backup.module.js';
import { SIGN_IN_METHODS, SignInMethodsController } from './console/sign-in-methods.controller.js';
import { loadAppConfig, type AppConfig } from './config.js';
import { GracefulShutdown } from './graceful-shutdown.js';
import { HealthController } from './health.controller.js';
import { AdminOverviewController } from './overview/admin-overview.controller.js';
import { AdminApprovalsController } from './approvals/admin-approvals.controller.js';
import { AdminTasksController } from './tasks/admin-tasks.controller.js';
import { TasksController } from './tasks/tasks.controller.js';
import { ToolsController } from './tools/tools.controller.js';
import { loggingModule } from './logging.js';
import { MetricsController, MetricsPort } from './metrics.js';

/**
 * What a tool file in a tool directory may inject, besides the globals (configuration, the
 * `DataSource`, a `Logger`): the services `mirobody` exports.
 */
const toolDirectoryImports = [McpRequestStateModule, MemoryModule, FilesModule];

export interface AppExtensions {
  /**
   * Modules of your own whose `*Service` providers add tools, resources and prompts. A module whose
   * services use `MemoryStore` or `FilesService` imports `MemoryModule` or `FilesModule`.
   */
  imports?: ModuleMetadata['imports'];
}

/**
 * The deployable server, and the one place that composes it: configuration, logs, the database,
 * health checks, the MCP endpoint, every feature lib (with its tables and routes) and the built-in
 * tools. The feature libs read their options from their sections of the configuration, so a module
 * that needs one's services imports it and owns nothing of it; only common, config and the
 * database are global.
 */
@Module({})
export class AppModule {
  static register(config: AppConfig = loadAppConfig(process.env), extensions: AppExtensions = {}): DynamicModule {
    // One module, imported twice: `/mcp` asks for approvals, the approvers' routes decide them.
    const approvals = McpApprovalsModule.register({ imports: [AuthModule] });
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => config] }),
        loggingModule(config.LOG_LEVEL, config.LOG_FORMAT),
        CommonModule.forRoot({
          ...config.common,
          ...(config.PUBLIC_BASE_URL_CONFIGURED ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
          // The auth section's key: the rate limits were its first use.
          redisUrl: config.auth.redisUrl,
          metricsEnabled: config.METRICS_TOKEN !== undefined || config.METRICS_PORT !== 0,
          tracing: { enabled: config.TRACING, serviceName: 'mirobody' },
        }),
        DatabaseModule.forRoot({ ...config.database, dataDir: config.DATA_DIR }),
        // This instance's reports and the database probe, for the admin overview.
        DeploymentModule,
        TerminusModule,
        McpModule.forRoot(
          {
            serverInfo: { name: 'mirobody', version: config.version },
            ...config.mcp,
            // Without a configured public address, the 401 names the metadata at the address the client used.
            resourceMetadataUrl: resourceMetadataUrl(config.PUBLIC_BASE_URL_CONFIGURED ? config.PUBLIC_BASE_URL : ''),
          },
          // The caller resolver, rate limit and access log `/mcp` takes; the tasks extension; tool approvals.
          [AuthModule, McpTasksModule, approvals],
        ),
        // Also the app's own: the task routes read and cancel tasks, the approval routes decide approvals.
        McpTasksModule,
        approvals,
        AuthModule,
        FilesModule,
        MemoryModule,
        HealthModule,
        ConversationsModule,
        ...(config.auth.oauthMode === 'builtin' ? [OAuthModule.register()] : []),
        ...(config.oauth.identityProvider.issuer ? [ConsoleSignInModule.register()] : []),
        ToolsModule,
        BackupModule,
        ...(extensions.imports ?? []),
        ...(config.toolDirectories.directories.length ? [ToolDirectoriesModule.register({ ...config.toolDirectories, imports: toolDirectoryImports })] : []),
      ],
      controllers: [
        HealthController,
        AdminToolsController,
        SignInMethodsController,
        AdminOverviewController,
        TasksController,
        AdminTasksController,
        AdminApprovalsController,
        ToolsController,
        ...(config.METRICS_TOKEN ? [MetricsController] : []),
      ],
      providers: [GracefulShutdown, MetricsPort, { provide: SIGN_IN_METHODS, useValue: { oidc: !!config.oauth.identityProvider.issuer, link: true } }],
    };
  }
}
