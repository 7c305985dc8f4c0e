import { Module } from '@nestjs/common';
import { MCP_RATE_LIMIT } from '@app/mcp';
import { AuthOptionsModule } from '../auth-options.module.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RequestRateLimiter } from './request-rate-limiter.js';

/** Request rate limits per credential and per address (in memory, or shared through Redis): REST's guard, and `/mcp`'s `MCP_RATE_LIMIT`. */
@Module({
  imports: [AuthOptionsModule],
  providers: [RequestRateLimiter, RateLimitGuard, { provide: MCP_RATE_LIMIT, useExisting: RequestRateLimiter }],
  exports: [RequestRateLimiter, RateLimitGuard, MCP_RATE_LIMIT],
})
export class RateLimitModule {}
