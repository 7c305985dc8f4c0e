export { CurrentUser, Arg, SchemaProperty, ToolContext } from './decorators/tool-parameter.decorators.js';
export { McpTool } from './decorators/mcp-tool.decorator.js';
export { McpTools } from './decorators/mcp-tools.decorator.js';
export { decorateToolClass, type MethodDecorations, type ToolClassDecorations } from './decorators/decorate-tool-class.js';
export { McpCompletion, McpPrompt, McpResource, McpResourceTemplate } from './decorators/mcp-resource.decorators.js';
export type { JsonSchema, SchemaValueOptions, ToolOptions } from './decorators/metadata.types.js';
export {
  agentFromAuthInfo,
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
export { exploreClasses, type ClassToExplore, type ExploreLog } from './explorer/explore-classes.js';
export { registerMcpBodyParsers } from './http/mcp-body-parsers.js';
export { SERVER_ERROR } from './http/json-rpc-error.js';
export { McpModule, type McpModuleSettings } from './mcp.module.js';
export { McpHttpService } from './http/mcp-http.service.js';
export { McpRegistry, type InProcessCallOptions } from './registry/mcp-registry.js';
export { offlineCatalog, type OfflineCatalogSource } from './registry/offline-catalog.js';
export { CATALOG_FORMATS, type CatalogFormat, type ToolCatalog } from './registry/tool-catalog.js';
export { toGeminiFunction, toOpenAiChatFunction, toOpenAiResponsesFunction } from './registry/llm-functions.js';
export { MCP_CONTEXT_TYPE } from './registry/tool-invoker.js';
export { fail, ok, type ToolResult } from './registry/tool-result.js';
export { McpRequestState } from './server/mcp-request-state.js';
export { buildInputSchema } from './schema/build-input-schema.js';
export { ToolDefinitionError } from './schema/tool-definition.error.js';
export { findToolFiles, ToolDirectoryError, type ToolFile } from './tool-directories/find-tool-files.js';
export { importToolFiles } from './tool-directories/import-tool-files.js';
export { registerToolModuleHooks } from './tool-directories/register-tool-module-hooks.js';
export { ToolDirectoriesModule, type ToolDirectoriesOptions } from './tool-directories/tool-directories.module.js';
export { describeOrigin, originOf, type ToolOrigin } from './tool-directories/tool-origin.js';
export {
  AGENT_NAME_PATTERN,
  AGENT_NAME_RULE,
  agentKey,
  agentToolListsFrom,
  isAgentListKey,
  ToolVisibility,
  type AgentToolLists,
} from './visibility/tool-visibility.js';
export { toolDirectoriesConfig } from './tool-directories/tool-directories.config.js';
export { mcpConfig } from './mcp.config.js';
