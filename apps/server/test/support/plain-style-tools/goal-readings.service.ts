import { CurrentUser, McpTool, ok, type ToolResult, type UserInfo } from 'mirobody';

/** What `countReadingsAboveGoal` found. */
interface GoalCount {
  /** Readings at or above the goal */
  count: number;
  unit: 'mmol/L' | 'mg/dL';
  days: number;
  /** Who asked, echoed to show the caller is filled by the server */
  caller: string;
}

/** A tool in the plain style: names, types, defaults and descriptions from the signature and doc comments alone. */
export class GoalReadingsService {
  /** Count how many of the caller's recent readings reached a goal value. */
  @McpTool()
  async countReadingsAboveGoal(
    @CurrentUser() user: UserInfo,
    /** Exact indicator name, e.g. "heart_rate" */ indicator: string,
    /** Value a reading must reach, in the indicator's unit */ goal: number,
    unit: 'mmol/L' | 'mg/dL' = 'mmol/L',
    days = 30,
  ): Promise<ToolResult<GoalCount>> {
    return ok({ count: indicator.length + Math.round(goal), unit, days, caller: user.email ?? 'unknown' });
  }

  /**
   * Convert a temperature to kelvin.
   * @param value The temperature to convert
   * @param unit The scale it is in
   */
  @McpTool()
  toKelvin(value: number, unit: 'celsius' | 'fahrenheit'): ToolResult<{ kelvin: number }> {
    return ok({ kelvin: unit === 'celsius' ? value + 273.15 : ((value - 32) * 5) / 9 + 273.15 });
  }
}
