import { Injectable, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CurrentUser, McpTool, ok, type ToolResult, type UserInfo } from '@app/mcp';

export interface GoalCount {
  indicator: string;
  goal: number;
  readingsAboveGoal: number;
}

@Injectable()
export class GoalService {
  constructor(private readonly dataSource: DataSource) {}

  /** Count how many of the caller's recent readings reached a goal value. */
  @McpTool()
  async countReadingsAboveGoal(
    @CurrentUser() user: UserInfo,
    /** Exact indicator code, e.g. "8867-4" (heart rate) */ indicator: string,
    /** Value a reading must reach, in the indicator's unit, e.g. 120 */ goal: number,
    /** How many days back to look */ days: 7 | 30 | 90 = 30,
  ): Promise<ToolResult<GoalCount>> {
    const since = new Date(Date.now() - days * 86_400_000);
    // The health lib's FHIR Observations; scoped to the caller, whatever the arguments say.
    const [{ count }] = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM health_observations
        WHERE subject_id = $1 AND code = $2 AND value_numeric >= $3 AND clinical_at >= $4`,
      [user.userId, indicator, goal, since],
    );
    return ok({ indicator, goal, readingsAboveGoal: count });
  }
}

/** Import it into the app (see "Serve your own tools"): the tool is published at start-up. */
@Module({ providers: [GoalService] })
export class GoalToolsModule {}
