import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, Not, type Repository } from 'typeorm';
import { describeError, HOURLY_AFTER_START, PeriodicJob } from '@app/common';
import { AuthorizationRequestEntity } from './authorization/authorization-request.entity.js';
import { RegisteredClientEntity } from './clients/registered-client.entity.js';
import { UsedAssertionEntity } from './grants/used-assertion.entity.js';

/** A finished sign-in is kept this long past its expiry, so that its code presented again is still known as a reuse. */
const KEEP_FINISHED_MS = 24 * 3600 * 1000;

/**
 * Hourly: removes sign-ins long expired (and at once the identity provider's refresh token of one
 * whose code was never redeemed), registered clients past their lifetime, and the used assertion
 * ids (`jti`) of assertions that have expired, which are refused for that anyway.
 */
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
    @InjectRepository(UsedAssertionEntity) private readonly usedAssertions: Repository<UsedAssertionEntity>,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  async purge(): Promise<{ requests: number; clients: number; assertions: number }> {
    await this.requests.update({ expiresAt: LessThan(new Date()), providerRefreshToken: Not(IsNull()) }, { providerRefreshToken: null });
    const requests = await this.requests.delete({ expiresAt: LessThan(new Date(Date.now() - KEEP_FINISHED_MS)) });
    const clients = await this.clients.delete({ expiresAt: LessThan(new Date()) });
    const assertions = await this.usedAssertions.delete({ expiresAt: LessThan(new Date()) });
    return { requests: requests.affected ?? 0, clients: clients.affected ?? 0, assertions: assertions.affected ?? 0 };
  }
}
