import { Module, type DynamicModule } from '@nestjs/common';
import { MemoryModule, type MemoryOptions } from '@app/memory';
import { ConversationsModule } from '@app/conversations';
import { HealthModule } from '@app/health';
import { RenderChartService } from './chart/render-chart.service.js';
import { ConformanceFixturesModule } from './conformance/conformance-fixtures.module.js';
import { SummarizeConversationService } from './conversations/summarize-conversation.service.js';
import { EchoService } from './echo.service.js';
import { MemoryToolsService } from './memory/memory-tools.service.js';
import { FilesToolsService } from './files/files-tools.service.js';
import { FamilyHealthService } from './health/family-health.service.js';
import { WhoamiService } from './whoami.service.js';

export interface ToolsModuleOptions {
  /** Registers the tools, resources and prompts the MCP conformance suite expects. */
  MCP_CONFORMANCE_FIXTURES: boolean;
  /** Long-term memory (`memoryConfig` in @app/memory). */
  memory: MemoryOptions;
}

/** The built-in tools, plus the conformance fixtures when switched on. */
@Module({})
export class ToolsModule {
  static forRoot(options: ToolsModuleOptions): DynamicModule {
    return {
      module: ToolsModule,
      imports: [
        MemoryModule.forRoot(options.memory),
        HealthModule,
        ConversationsModule,
        ...(options.MCP_CONFORMANCE_FIXTURES ? [ConformanceFixturesModule] : []),
      ],
      providers: [EchoService, WhoamiService, MemoryToolsService, FilesToolsService, FamilyHealthService, SummarizeConversationService, RenderChartService],
    };
  }
}
