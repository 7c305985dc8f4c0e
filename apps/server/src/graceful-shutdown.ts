import type { Server } from 'node:http';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ConfigService } from '@nestjs/config';

/**
 * Closing the HTTP server waits for every connection to go. A keep-alive connection whose request
 * finishes during shutdown would stay open until the client leaves, so idle ones are closed as
 * they appear; a client may also hold a stream open as long as it likes, so after the grace
 * period whatever is left is cut and shutdown goes on.
 */
@Injectable()
export class GracefulShutdown implements BeforeApplicationShutdown, OnApplicationShutdown {
  private sweeper?: NodeJS.Timeout;
  private cutter?: NodeJS.Timeout;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ConfigService) private readonly config: ConfigService,
  ) {}

  beforeApplicationShutdown(): void {
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    const graceMs = this.config.getOrThrow<number>('SHUTDOWN_GRACE_SECONDS') * 1000;
    this.sweeper = setInterval(() => server.closeIdleConnections(), 100).unref();
    this.cutter = setTimeout(() => server.closeAllConnections(), graceMs).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    clearTimeout(this.cutter);
  }
}
