import { Injectable } from '@nestjs/common';
import { Arg, CurrentUser, McpTool, ok, type ToolResult, type UserInfo } from '@app/mcp';
import { InvalidInputError, readIsoDateTime } from '@app/common';
import { FamilyHealthReader, type FamilyHealthAnswer } from '@app/health';

const SINCE_FORMAT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** Recent FHIR Observations of the caller, or of a care-circle member who shares their health data with the caller. */
@Injectable()
export class FamilyHealthService {
  constructor(private readonly reader: FamilyHealthReader) {}

  /**
   * Read recent health records (FHIR Observations: vitals, labs, sleep, ...) of the user or of a
   * care-circle member who shares their health data with the user, newest first by when they were
   * measured. Use it for questions such as "how did I sleep?" or "how is mum doing?".
   */
  @McpTool({
    scopes: ['health:read'],
    annotations: { title: 'Family health', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  async familyHealth(
    @CurrentUser() user: UserInfo,
    @Arg('member', {
      type: 'string',
      description:
        'Whose records: empty or "me" for the user (or the member the chat is currently about); otherwise the member id, name, nickname or e-mail of someone who shares with the user',
      optional: true,
      schema: { maxLength: 320 },
    })
    member: string | undefined,
    @Arg('count', { type: 'integer', description: 'How many recent observations to return (1-100)', default: 20, schema: { minimum: 1, maximum: 100 } })
    count: number,
    @Arg('code', {
      description: 'Only observations with this code (e.g. LOINC "8867-4") or whose name contains this word (e.g. "sleep")',
      optional: true,
      schema: { minLength: 1, maxLength: 200 },
    })
    code?: string,
    @Arg('since', {
      description: 'Only observations measured on or after this ISO date or date-time, e.g. "2026-01-01"',
      optional: true,
      schema: { pattern: SINCE_FORMAT.source },
    })
    since?: string,
  ): Promise<ToolResult<FamilyHealthAnswer>> {
    const sinceDate = since === undefined ? undefined : readIsoDateTime(since, ['day', 'moment']);
    if (sinceDate && 'problem' in sinceDate) throw new InvalidInputError(`since: "${since}" ${sinceDate.problem}`, { since: sinceDate.problem });
    return ok(
      await this.reader.read(
        { userId: user.userId, ...(user.actingFor ? { actingFor: user.actingFor } : {}) },
        { count, ...(member !== undefined ? { member } : {}), ...(code ? { code } : {}), ...(sinceDate ? { since: sinceDate.start } : {}) },
      ),
    );
  }
}
