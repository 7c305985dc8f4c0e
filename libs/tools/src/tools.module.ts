import { Module } from '@nestjs/common';
import { ConversationsModule } from '@app/conversations';
import { FilesModule } from '@app/files';
import { HealthModule } from '@app/health';
import { McpRequestStateModule } from '@app/mcp';
import { MemoryModule } from '@app/memory';
import { RenderChartService } from './chart/render-chart.service.js';
import { SummarizeConversationService } from './conversations/summarize-conversation.service.js';
import { EchoService } from './echo.service.js';
import { ForgetMemoryService } from './memory/forget-memory.service.js';
import { MemoryToolsService } from './memory/memory-tools.service.js';
import { FilesToolsService } from './files/files-tools.service.js';
import { FamilyHealthService } from './health/family-health.service.js';
import { WhoamiService } from './whoami.service.js';

/**
 * The built-in tools. It registers tools only: it imports the feature modules whose services the
 * tools call for their exports, the very module instances the app composes (static modules, one
 * per app), and owns none of their routes or tables.
 */
@Module({
  imports: [MemoryModule, FilesModule, HealthModule, ConversationsModule, McpRequestStateModule],
  providers: [
    EchoService,
    WhoamiService,
    MemoryToolsService,
    ForgetMemoryService,
    FilesToolsService,
    FamilyHealthService,
    SummarizeConversationService,
    RenderChartService,
  ],
})
export class ToolsModule {}
