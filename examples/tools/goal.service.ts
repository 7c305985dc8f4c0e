/**
 * A deployed tool, as a platform team would drop it into a directory listed in MCP_TOOL_DIRS.
 * It compares the caller's own recorded readings with a goal value (the original engine's
 * "goal service"). Everything it needs comes from `mirobody`, the public tool API.
 *
 * The readings live in the health lib's observations table; the query reads only the columns it
 * needs and is always scoped to the authenticated caller.
 */
import { Arg, CurrentUser, DataSource, Injectable, Logger, McpTool, ok, type UserInfo } from 'mirobody';
import { readingsAtOrAbove } from './_readings.js';

const MAX_TIMES = 20;

@Injectable()
export class GoalService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly logger: Logger,
  ) {}

  /**
   * Count how many of the user's readings of one indicator reached a goal value in the last days.
   * Use the exact indicator code the user's records carry.
   */
  @McpTool({ annotations: { title: 'Readings at or above a goal', readOnlyHint: true, openWorldHint: false } })
  async countReadingsAboveGoal(
    @CurrentUser() user: UserInfo,
    /** Exact indicator code, e.g. "8867-4" (heart rate) */ indicator: string,
    /** Value a reading must reach, in the indicator's own unit, e.g. 100 */ goal: number,
    // A whole number of days within ten years: constraints a type cannot say, so @Arg says them.
    /** How many days back to look, e.g. 30 */ @Arg('days', { type: 'integer', schema: { minimum: 1, maximum: 3650 } }) days = 30,
  ) {
    const since = new Date(Date.now() - days * 24 * 3600 * 1000);
    // The health lib's observations: `subject_id` is whose data it is, `clinical_at` when it was measured.
    const rows: { clinical_at: Date; value: number }[] = await this.dataSource.query(
      `SELECT clinical_at, value_numeric AS value
         FROM health_observations
        WHERE subject_id = $1 AND code = $2 AND clinical_at >= $3 AND value_numeric IS NOT NULL
        ORDER BY clinical_at DESC`,
      [user.userId, indicator, since],
    );
    const hits = readingsAtOrAbove(rows, goal);
    this.logger.debug(`${hits.length} of ${rows.length} readings of ${indicator} reach ${goal}`);
    return ok({
      indicator,
      goal,
      readings_examined: rows.length,
      readings_above_goal: hits.length,
      times: hits.slice(0, MAX_TIMES).map((row) => new Date(row.clinical_at).toISOString()),
    });
  }
}
