import { randomBytes } from 'node:crypto';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { BackgroundWrites } from './background-writes.js';
import { InstanceBroadcast } from './instance-broadcast.js';
import { ErrorFilter } from './rest/error.filter.js';
import { createValidationPipe } from './rest/validation.js';
import { PublicAddress } from './public-address.js';
import { ScopesSupported } from './scopes-supported.js';
import { Signer } from './signer.js';
import { Metrics } from './telemetry/metrics.js';
import { Tracing, type TracingSettings } from './telemetry/tracing.js';
import { UserDataContributors } from './user-data/user-data-contributors.js';

export interface CommonModuleOptions {
  /**
   * The root secret every signature of the server derives its key from (session ids, request
   * state, signed URLs). Instances behind one load balancer need the same one; without it each
   * process makes its own, so its signatures die with it.
   */
  signingSecret?: string;
  /** `PUBLIC_BASE_URL`, when it is configured (see `PublicAddress`). */
  publicBaseUrl?: string;
  /** `REDIS_URL`, when it is configured: instances tell each other what they keep in memory through it (see `InstanceBroadcast`). */
  redisUrl?: string;
  /** Whether the metrics are served (`METRICS_TOKEN` or `METRICS_PORT`): only then are they recorded (see `Metrics`). */
  metricsEnabled?: boolean;
  /** Whether spans are made and exported (an OTLP endpoint in the environment), see `Tracing`. */
  tracing?: TracingSettings;
}

/**
 * What every lib shares and no lib owns: background writes, the signer, the user-data
 * contributors, the scopes tools require, the server's public address, the broadcast between
 * instances, the metrics and traces, and the REST conventions (one validation pipe, one exception filter).
 * Global: the app imports it once with `forRoot`.
 */
@Module({})
export class CommonModule {
  static forRoot(options: CommonModuleOptions = {}): DynamicModule {
    return {
      module: CommonModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        BackgroundWrites,
        UserDataContributors,
        ScopesSupported,
        { provide: Signer, useFactory: () => new Signer(signingSecret(options)) },
        { provide: PublicAddress, useValue: new PublicAddress(options.publicBaseUrl) },
        { provide: InstanceBroadcast, useFactory: () => new InstanceBroadcast(options.redisUrl) },
        { provide: Metrics, useValue: new Metrics(options.metricsEnabled ?? false) },
        { provide: Tracing, useFactory: () => Tracing.start(options.tracing ?? { enabled: false, serviceName: '' }) },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: ErrorFilter },
      ],
      exports: [BackgroundWrites, UserDataContributors, ScopesSupported, Signer, PublicAddress, InstanceBroadcast, Metrics, Tracing],
    };
  }
}

function signingSecret(options: CommonModuleOptions): string {
  if (options.signingSecret) return options.signingSecret;
  new Logger('Signer').warn('SIGNING_SECRET is not set: signatures (MCP session ids among them) are valid in this process only');
  return randomBytes(32).toString('hex');
}
