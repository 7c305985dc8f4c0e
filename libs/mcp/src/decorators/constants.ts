export const MCP_TOOL_METADATA = 'mirobody:mcp:tool';
export const MCP_ARGS_METADATA = 'mirobody:mcp:args';
export const MCP_SCHEMA_PROPERTIES_METADATA = 'mirobody:mcp:schema-properties';
export const MCP_RESOURCE_METADATA = 'mirobody:mcp:resource';
export const MCP_RESOURCE_TEMPLATE_METADATA = 'mirobody:mcp:resource-template';
export const MCP_PROMPT_METADATA = 'mirobody:mcp:prompt';
export const MCP_COMPLETION_METADATA = 'mirobody:mcp:completion';
export const MCP_TOOL_ORIGIN_METADATA = 'mirobody:mcp:tool-origin';
