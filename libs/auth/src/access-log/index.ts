export { AccessLogModule } from './access-log.module.js';
export { AccessLogRetention } from './access-log-retention.js';
export { AccessLogStats, type LastHourOfCalls, type MinuteOfCalls, type RecentToolError, type ToolCallStats } from './access-log-stats.js';
export { ToolCallEntity } from './tool-call.entity.js';
