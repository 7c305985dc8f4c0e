import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { MCP_CALL_OBSERVER } from '@app/mcp';
import { AuthOptionsModule } from '../auth-options.module.js';
import { AccessLog } from './access-log.js';
import { AccessLogRetention } from './access-log-retention.js';
import { AccessLogStats } from './access-log-stats.js';
import { ToolCallEntity } from './tool-call.entity.js';

/**
 * The access log (`mcp_tool_calls`): every tool call by a known user, written after the answer
 * (`MCP_CALL_OBSERVER`), its purge, and what it says of the deployment (`AccessLogStats`).
 */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [ToolCallEntity] }), AuthOptionsModule],
  providers: [{ provide: MCP_CALL_OBSERVER, useClass: AccessLog }, AccessLogRetention, AccessLogStats],
  exports: [MCP_CALL_OBSERVER, AccessLogRetention, AccessLogStats],
})
export class AccessLogModule {}
