import { Injectable } from '@nestjs/common';
import { CurrentUser, McpTool, ok, type ToolResult, type UserInfo } from '@app/mcp';
import { FamilyHealthReader } from '@app/health';

/** Lets a model (and whoever sets up a client) check that its credentials work, without learning any internal id. */
@Injectable()
export class WhoamiService {
  constructor(private readonly familyHealth: FamilyHealthReader) {}

  /**
   * Tell whether the caller is authenticated and which session the call belongs to;
   * acting_for_member is true when the chat is currently about a care-circle member whose health
   * data the caller may read. Use it to check that the credentials work.
   */
  @McpTool({
    annotations: { title: 'Who am I', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  async whoami(@CurrentUser() user: UserInfo): Promise<ToolResult<{ authenticated: true; session_id: string | null; acting_for_member?: true }>> {
    const actingForMember = await this.familyHealth.actsForReadableMember({ userId: user.userId, ...(user.actingFor ? { actingFor: user.actingFor } : {}) });
    return ok({ authenticated: true, session_id: user.sessionId ?? null, ...(actingForMember ? { acting_for_member: true as const } : {}) });
  }
}
