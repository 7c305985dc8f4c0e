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
