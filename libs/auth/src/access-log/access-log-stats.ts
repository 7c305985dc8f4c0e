import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ToolCallEntity } from './tool-call.entity.js';

/** Calls and failures of one minute. */
export interface MinuteOfCalls {
  minute: Date;
  calls: number;
  errors: number;
}

/** One tool's calls, failures and durations (50th and 99th percentile, in milliseconds). */
export interface ToolCallStats {
  tool: string;
  calls: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
}

export interface RecentToolError {
  at: Date;
  tool: string;
  userId: string;
  userEmail: string | null;
  requestId: string | null;
  /** The tool error's message, or `Internal error`; null for a call logged before messages were kept. */
  message: string | null;
}

/** The last hour, by whole minutes: the current minute and the 59 before it. */
export interface LastHourOfCalls {
  perMinute: MinuteOfCalls[];
  tools: ToolCallStats[];
}

/** Milliseconds to the tenth: percentiles interpolate between whole-millisecond durations. */
const tenths = (value: number) => Math.round(value * 10) / 10;

/**
 * What the access log (`mcp_tool_calls`) says of the whole deployment: the calls of signed-in users,
 * written by every instance into the one table, so one query sees all instances, unlike each
 * instance's Prometheus counters. Each statement reads one range of `called_at` (indexed).
 */
@Injectable()
export class AccessLogStats {
  constructor(@InjectRepository(ToolCallEntity) private readonly calls: Repository<ToolCallEntity>) {}

  async lastHour(): Promise<LastHourOfCalls> {
    // One start for both statements, so that a minute turning between them changes neither.
    const [{ since }]: { since: Date }[] = await this.calls.query(`SELECT date_trunc('minute', now()) - interval '59 minutes' AS since`);
    const perMinute: MinuteOfCalls[] = await this.calls.query(
      `WITH counted AS (
         SELECT date_trunc('minute', called_at) AS minute, count(*)::int AS calls, (count(*) FILTER (WHERE NOT success))::int AS errors
         FROM mcp_tool_calls WHERE called_at >= $1 GROUP BY 1)
       SELECT slot.minute, COALESCE(counted.calls, 0) AS calls, COALESCE(counted.errors, 0) AS errors
       FROM generate_series($1::timestamptz, $1::timestamptz + interval '59 minutes', interval '1 minute') AS slot (minute)
       LEFT JOIN counted ON counted.minute = slot.minute
       ORDER BY slot.minute`,
      [since],
    );
    const tools: ToolCallStats[] = await this.calls.query(
      `SELECT tool, count(*)::int AS calls, (count(*) FILTER (WHERE NOT success))::int AS errors,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS "p50Ms",
         percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms) AS "p99Ms"
       FROM mcp_tool_calls WHERE called_at >= $1
       GROUP BY tool ORDER BY calls DESC, tool`,
      [since],
    );
    return { perMinute, tools: tools.map((tool) => ({ ...tool, p50Ms: tenths(tool.p50Ms), p99Ms: tenths(tool.p99Ms) })) };
  }

  /** The latest failed calls, newest first, with the caller's e-mail (read through a partial index of failures). */
  recentErrors(limit: number): Promise<RecentToolError[]> {
    return this.calls.query(
      `SELECT call.called_at AS at, call.tool, call.user_id AS "userId", users.email AS "userEmail", call.request_id AS "requestId", call.error AS message
       FROM mcp_tool_calls call LEFT JOIN users ON users.id = call.user_id
       WHERE NOT call.success
       ORDER BY call.called_at DESC, call.id DESC LIMIT $1`,
      [limit],
    );
  }
}
