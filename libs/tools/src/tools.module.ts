import { Module } from '@nestjs/common';
import { ConversationsModule } from '@app/conversations';
import { HealthModule } from '@app/health';
import { RenderChartService } from './chart/render-chart.service.js';
import { SummarizeConversationService } from './conversations/summarize-conversation.service.js';
import { EchoService } from './echo.service.js';
import { MemoryToolsService } from './memory/memory-tools.service.js';
import { FilesToolsService } from './files/files-tools.service.js';
import { FamilyHealthService } from './health/family-health.service.js';
import { WhoamiService } from './whoami.service.js';

/**
 * The built-in tools. It registers tools only: the app module imports (and configures) the feature
 * modules whose services the tools call. Health and conversations are imported here for their
 * exports, the very module instances the app holds; the memory store and file storage are global,
 * as tool directories inject them too.
 */
@Module({
  imports: [HealthModule, ConversationsModule],
  providers: [EchoService, WhoamiService, MemoryToolsService, FilesToolsService, FamilyHealthService, SummarizeConversationService, RenderChartService],
})
export class ToolsModule {}
