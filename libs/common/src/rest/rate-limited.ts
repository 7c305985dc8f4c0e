import { SetMetadata } from '@nestjs/common';

export const RATE_LIMITED = 'mirobody:rate-limited';

/**
 * The route counts against the caller's rate limit. `@Authenticated()` and `@AdminOnly()` apply
 * it, so every `/api` and `/admin` route has it; the `/mcp` endpoint carries it too.
 */
export const RateLimited = () => SetMetadata(RATE_LIMITED, true);
