import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { describeError, PeriodicJob } from '@app/common';
import { ServerInstanceEntity } from './server-instance.entity.js';

/** How often an instance reports itself. */
export const HEARTBEAT_MS = 15_000;
/** An instance is live while it has reported within this many heartbeats: one or two lost reports (a slow database) do not hide it. */
const LIVE_WITHIN_HEARTBEATS = 3;
/** Rows of instances gone this long (killed, so never removed at shutdown) are deleted. */
const FORGOTTEN_AFTER = '1 day';

/**
 * This deployment's instances, in the database they share (`server_instances`): each one writes
 * its row at start-up and every `HEARTBEAT_MS`, and removes it at a graceful shutdown; one that
 * was killed stops reporting and soon no longer counts as live. The version is the app
 * configuration's `version` (the package's).
 */
@Injectable()
export class ServerInstances implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ServerInstances');
  /** This process, as its row names it. */
  readonly id = randomUUID();
  private readonly startedAt = new Date();
  private readonly version: string;
  private readonly heartbeat = new PeriodicJob(
    { firstDelayMs: HEARTBEAT_MS, intervalMs: HEARTBEAT_MS },
    () => this.report(),
    (error) => this.logger.warn(`Could not report this instance: ${describeError(error)}`),
  );

  constructor(
    @InjectRepository(ServerInstanceEntity) private readonly instances: Repository<ServerInstanceEntity>,
    config: ConfigService,
  ) {
    this.version = config.getOrThrow<string>('version');
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.report().catch((error: unknown) => this.logger.warn(`Could not report this instance: ${describeError(error)}`));
    this.heartbeat.start();
  }

  /** Before the database closes: the row goes with the instance, rather than linger as a live one for three heartbeats. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.heartbeat.stop();
    await this.instances.delete({ id: this.id }).catch((error: unknown) => this.logger.warn(`Could not remove this instance's row: ${describeError(error)}`));
  }

  /** The instances that reported within the last three heartbeats, oldest first. */
  live(): Promise<ServerInstanceEntity[]> {
    return this.instances.query(
      `SELECT id, hostname, version, started_at AS "startedAt", last_seen_at AS "lastSeenAt" FROM server_instances
       WHERE last_seen_at > now() - $1::integer * interval '1 millisecond'
       ORDER BY started_at, id`,
      [LIVE_WITHIN_HEARTBEATS * HEARTBEAT_MS],
    );
  }

  /** One heartbeat: writes this instance's row (again, should another have deleted it), and deletes those of instances long gone. */
  async report(): Promise<void> {
    await this.instances.query(
      `INSERT INTO server_instances (id, hostname, version, started_at, last_seen_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (id) DO UPDATE SET last_seen_at = now()`,
      [this.id, hostname(), this.version, this.startedAt],
    );
    await this.instances.query(`DELETE FROM server_instances WHERE last_seen_at < now() - interval '${FORGOTTEN_AFTER}'`);
  }
}
