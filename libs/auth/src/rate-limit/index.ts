export { RateLimitGuard } from './rate-limit.guard.js';
export { RateLimitModule } from './rate-limit.module.js';
export { RequestRateLimiter } from './request-rate-limiter.js';
