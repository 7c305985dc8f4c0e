export { CurrentUser, Arg, SchemaProperty, ToolContext } from './decorators/tool-parameter.decorators.js';
export { McpTool } from './decorators/mcp-tool.decorator.js';
export { McpTools } from './decorators/mcp-tools.decorator.js';
export { decorateToolClass, type MethodDecorations, type ToolClassDecorations } from './decorators/decorate-tool-class.js';
export { McpCompletion, McpPrompt, McpResource, McpResourceTemplate } from './decorators/mcp-resource.decorators.js';
export type { ApprovalPolicy, JsonSchema, SchemaValueOptions, ToolOptions } from './decorators/metadata.types.js';
export {
  MCP_CALL_OBSERVER,
  MCP_RATE_LIMIT,
  type McpCallObserver,
  type McpRateLimit,
  type RateLimitVerdict,
  type ToolCallEvent,
  type UserInfo,
} from './caller.js';
export { McpToolContext } from './context/mcp-tool-context.js';
export type { OptionalToolClass } from './explorer/mcp-explorer.service.js';
export { type ExploreLog } from './explorer/explore-classes.js';
export { registerMcpBodyParsers } from './http/mcp-body-parsers.js';
export { McpModule, type McpModuleSettings } from './mcp.module.js';
export { McpHttpService } from './http/mcp-http.service.js';
export { insufficientScope, McpRegistry } from './registry/mcp-registry.js';
export type { ArgumentProblem } from './registry/argument-validator.js';
export type { TaskSupportLevel, ToolSummary } from './registry/tool-summaries.js';
export { offlineCatalog } from './registry/offline-catalog.js';
export { CATALOG_FORMATS, type CatalogFormat, type ToolCatalog } from './registry/tool-catalog.js';
export { fail, ok, type ToolResult } from './registry/tool-result.js';
export { McpRequestState } from './server/mcp-request-state.js';
export { McpRequestStateModule } from './server/mcp-request-state.module.js';
export { findToolFiles } from './tool-directories/find-tool-files.js';
export { importToolFiles } from './tool-directories/import-tool-files.js';
export { registerToolModuleHooks } from './tool-directories/register-tool-module-hooks.js';
export { ToolDirectoriesModule, type ToolDirectoriesOptions } from './tool-directories/tool-directories.module.js';
export { AGENT_NAME_PATTERN, AGENT_NAME_RULE, isAgentListKey, type AgentToolLists } from './visibility/tool-visibility.js';
export { loadToolTypes, type PluginMetadata } from './types-plugin/tool-types.js';
export { toolDirectoriesConfig } from './tool-directories/tool-directories.config.js';
export { mcpConfig } from './mcp.config.js';
export { McpTasksModule } from './tasks/mcp-tasks.module.js';
export { McpTasks } from './tasks/mcp-tasks.service.js';
export { isTaskId, McpTaskQueries, ownerKeyOf, TASK_STATUSES, taskOwnerOf, type TaskFilter, type TaskView } from './tasks/task-queries.js';
export { mcpTasksConfig, type McpTasksOptions } from './tasks/tasks.config.js';
export { TASKS_EXTENSION, type TaskStatus } from './tasks/task-wire.js';
export { McpApprovalsModule } from './approvals/mcp-approvals.module.js';
export { McpApprovals, type ApprovalView } from './approvals/mcp-approvals.service.js';
export { APPROVAL_STATUSES, RUN_OUTCOMES, type ApprovalStatus, type RunOutcome } from './approvals/approval.entity.js';
export { MCP_AUDIT_TRAIL, MCP_CALLER_STANDING, type ApprovalAuditTrail, type CallerStanding, type Standing } from './approvals/approval-ports.js';
export { APPROVAL_META_KEY } from './approvals/approval-policy.js';
export { mcpApprovalsConfig, type McpApprovalsOptions } from './approvals/approvals.config.js';
export { SIGNATURE_HEADER, DELIVERY_HEADER } from './approvals/approval-webhook.js';
