import { Controller, Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ApiTag } from '@app/common';

/**
 * `/health/live`: the process answers (restart it if not). `/health/ready` and `/health`: it can
 * serve, database included; 503 with the failing part named when not (take it out of rotation).
 */
@ApiTag('probes')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get('live')
  @ApiOperation({ summary: 'Check that the process answers' })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Check that the server can serve, database included' })
  ready() {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 3000 })]);
  }

  /** A method of its own rather than a second path of `ready`, so that each address has an operationId of its own. */
  @Get()
  @HealthCheck()
  @ApiOperation({ summary: 'Check that the server can serve, as /health/ready does' })
  check() {
    return this.ready();
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
