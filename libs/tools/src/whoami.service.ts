import { Injectable } from '@nestjs/common';
import { CurrentUser, McpTool, ok, type ToolResult, type UserInfo } from '@app/mcp';

/** Lets a model (and whoever sets up a client) check that its credentials work, without learning any internal id. */
@Injectable()
export class WhoamiService {
  @McpTool({
    description: 'Tell whether the caller is authenticated and which session the call belongs to. Use it to check that the credentials work.',
    annotations: { title: 'Who am I', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  whoami(@CurrentUser() user: UserInfo): ToolResult<{ authenticated: true; session_id: string | null }> {
    return ok({ authenticated: true, session_id: user.sessionId ?? null });
  }
}
