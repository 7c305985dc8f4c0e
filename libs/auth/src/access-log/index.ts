export { AccessLogModule } from './access-log.module.js';
export { AccessLogRetention } from './access-log-retention.js';
export { ToolCallEntity } from './tool-call.entity.js';
