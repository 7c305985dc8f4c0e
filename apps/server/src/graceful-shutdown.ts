import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ConfigService } from '@nestjs/config';
import { BackgroundWrites } from '@app/common';

/**
 * Closing the HTTP server waits for every connection to go. A keep-alive connection whose request
 * finishes during shutdown would stay open until the client leaves, so idle ones are closed as
 * they appear; a client may also hold a stream open as long as it likes, so after the grace
 * period whatever is left is cut and shutdown goes on.
 *
 * Every answer not yet begun when shutdown starts, and every answer after, says
 * `Connection: close`: a keep-alive client would otherwise send its next request on a connection
 * the sweeper is closing and get ECONNRESET, not knowing whether its write happened. The writes
 * the last calls leave behind are finished before the database closes.
 */
@Injectable()
export class GracefulShutdown implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private sweeper?: NodeJS.Timeout;
  private cutter?: NodeJS.Timeout;
  private draining = false;
  private readonly inFlight = new Set<ServerResponse>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ConfigService) private readonly config: ConfigService,
    private readonly background: BackgroundWrites,
  ) {}

  onApplicationBootstrap(): void {
    // First, so that an answer Fastify writes at once (its 503 while closing) carries the header too.
    this.server.prependListener('request', this.track);
  }

  private get server(): Server {
    return this.adapterHost.httpAdapter.getHttpServer() as Server;
  }

  private readonly track = (_request: IncomingMessage, response: ServerResponse) => {
    if (this.draining) return closeAfter(response);
    this.inFlight.add(response);
    response.once('close', () => this.inFlight.delete(response));
  };

  beforeApplicationShutdown(): void {
    this.draining = true;
    this.inFlight.forEach(closeAfter);
    const server = this.server;
    const graceMs = this.config.getOrThrow<number>('SHUTDOWN_GRACE_SECONDS') * 1000;
    this.sweeper = setInterval(() => server.closeIdleConnections(), 100).unref();
    this.cutter = setTimeout(() => server.closeAllConnections(), graceMs).unref();
  }

  /**
   * The HTTP server is closed by now, so no call is left to start a background write (an access-log
   * row); those the last calls started are awaited here. Nest runs this hook of the app's own module
   * before those of the modules it imports, so before the database closes.
   */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    clearTimeout(this.cutter);
    this.server.off('request', this.track);
    await this.background.flush();
  }
}

/** Node closes the connection after an answer whose headers say so; one already begun keeps what it sent. */
function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close');
}
