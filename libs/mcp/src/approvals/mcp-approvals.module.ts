import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { optionsFromConfig } from '@app/common';
import { DatabaseModule } from '@app/database';
import { McpTasksModule } from '../tasks/mcp-tasks.module.js';
import { ApprovalStore } from './approval-store.js';
import { ApprovalWebhook } from './approval-webhook.js';
import { McpApprovalEntity } from './approval.entity.js';
import { MCP_APPROVALS_CONFIG_SECTION, MCP_APPROVALS_OPTIONS } from './approvals.config.js';
import { ApprovalsUserData } from './approvals-user-data.js';
import { McpApprovals } from './mcp-approvals.service.js';
import { CreateMcpApprovals1797600000000 } from './migrations/1797600000000-create-mcp-approvals.js';

/**
 * Tool approvals on the app's database: `McpModule.forRoot(settings, [..., McpApprovalsModule.register({ imports })])`
 * makes `@McpTool({ approval })` tools wait for the person their policy names. Its options are the
 * app configuration's `approvals` section (`APPROVALS_*`); `imports` must provide the audit trail
 * (`MCP_AUDIT_TRAIL`) and the callers' standing (`MCP_CALLER_STANDING`), which live in libs above
 * this one. `McpApprovals` also serves the approvers' routes.
 */
@Module({})
export class McpApprovalsModule {
  static register({ imports = [] }: Pick<ModuleMetadata, 'imports'>): DynamicModule {
    return {
      module: McpApprovalsModule,
      imports: [DatabaseModule.forFeature({ entities: [McpApprovalEntity], migrations: [CreateMcpApprovals1797600000000] }), McpTasksModule, ...imports],
      providers: [optionsFromConfig(MCP_APPROVALS_OPTIONS, MCP_APPROVALS_CONFIG_SECTION), ApprovalStore, ApprovalWebhook, McpApprovals, ApprovalsUserData],
      exports: [McpApprovals],
    };
  }
}
