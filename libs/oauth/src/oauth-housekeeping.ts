import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, type Repository } from 'typeorm';
import { describeError, HOURLY_AFTER_START, PeriodicJob } from '@app/common';
import { AuthorizationRequestEntity } from './authorization/authorization-request.entity.js';
import { RegisteredClientEntity } from './clients/registered-client.entity.js';

/** A finished sign-in is kept this long past its expiry, so that its code presented again is still known as a reuse. */
const KEEP_FINISHED_MS = 24 * 3600 * 1000;

/** Hourly: removes sign-ins long expired and registered clients past their lifetime. */
@Injectable()
export class OAuthHousekeeping implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OAuth');
  private readonly job = new PeriodicJob(
    HOURLY_AFTER_START,
    () => this.purge(),
    (error) => this.logger.error(`Could not purge expired sign-ins and clients: ${describeError(error)}`),
  );

  constructor(
    @InjectRepository(AuthorizationRequestEntity) private readonly requests: Repository<AuthorizationRequestEntity>,
    @InjectRepository(RegisteredClientEntity) private readonly clients: Repository<RegisteredClientEntity>,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  async purge(): Promise<{ requests: number; clients: number }> {
    const requests = await this.requests.delete({ expiresAt: LessThan(new Date(Date.now() - KEEP_FINISHED_MS)) });
    const clients = await this.clients.delete({ expiresAt: LessThan(new Date()) });
    return { requests: requests.affected ?? 0, clients: clients.affected ?? 0 };
  }
}
