import { Injectable } from '@nestjs/common';
import { Arg, McpTool, ok, type ToolResult } from '@app/mcp';

/** The smallest possible tool, and a connectivity check. */
@Injectable()
export class EchoService {
  @McpTool({
    description: 'Echo back the provided text. Use it to check that the MCP connection works.',
    annotations: { title: 'Echo', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  echo(@Arg('text', { description: 'Text to echo back, e.g. "hello"' }) text: string): ToolResult<{ echo: string }> {
    return ok({ echo: text });
  }
}
