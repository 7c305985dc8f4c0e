import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';

/**
 * `/health/live`: the process answers (restart it if not). `/health/ready` and `/health`: it can
 * serve, database included; 503 with the failing part named when not (take it out of rotation).
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  @Get(['', 'ready'])
  @HealthCheck()
  ready() {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 3000 })]);
  }
}

/**
 * The routes anyone may call that no rate limit counts, each with why. Every other route counts
 * against a budget (`@Authenticated()`, `@AdminOnly()`, `@Public()`), which a test holds by walking
 * the application's routes (apps/server/test/public-routes.e2e-spec.ts); it reads this list.
 */
export const UNCOUNTED_ROUTES: readonly { controller: Function; reason: string }[] = [
  {
    controller: HealthController,
    reason:
      'Load balancers and orchestrators poll the probes, often from an address that clients share (a proxy, a node): a budget spent by others would take a healthy instance out of rotation',
  },
];
