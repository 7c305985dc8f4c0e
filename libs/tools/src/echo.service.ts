import { Injectable } from '@nestjs/common';
import { McpTool, ok, type ToolResult } from '@app/mcp';

/** The smallest possible tool, and a connectivity check. */
@Injectable()
export class EchoService {
  /** Echo back the provided text. Use it to check that the MCP connection works. */
  @McpTool({ annotations: { title: 'Echo', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } })
  echo(/** Text to echo back, e.g. "hello" */ text: string): ToolResult<{ echo: string }> {
    return ok({ echo: text });
  }
}
