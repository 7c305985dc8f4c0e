import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ConfigService } from '@nestjs/config';
import { BackgroundWrites } from '@app/common';

/**
 * Shutdown's drain. The server stops accepting connections at once (a client trying one is
 * refused, so it knows nothing was sent). Every answer not yet begun, and every answer after, says
 * `Connection: close`, so each busy connection closes after its answer and its client knows not to
 * send on it again.
 *
 * A connection must never be closed under a client that is sending on it: the request would die
 * with ECONNRESET, and the client could not know whether its write happened. A keep-alive client
 * sends its next request within moments of the last answer, so a connection between two requests
 * looks idle to Node, whose `server.close()` closes every idle connection at once. So the drain
 * closes only connections that have had no request for `IDLE_BEFORE_CLOSE_MS`, and waits for the
 * rest to go by themselves before Nest closes the server. A client may also hold a stream open as
 * long as it likes, so after the grace period whatever is left is cut and shutdown goes on. The
 * writes the last calls leave behind are finished before the database closes.
 */
@Injectable()
export class GracefulShutdown implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private sweeper?: NodeJS.Timeout;
  private cutter?: NodeJS.Timeout;
  private draining = false;
  private readonly inFlight = new Set<ServerResponse>();
  /** Every response's `close` listener: one function for all, where a closure and `once`'s wrapper per request cost ~1k instructions. */
  private readonly untrack = untrackerOf(this.inFlight);
  private readonly connections = new Set<Socket>();
  /** During the drain: each connection seen with no request in flight, and since when. */
  private readonly idleSince = new Map<Socket, number>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ConfigService) private readonly config: ConfigService,
    private readonly background: BackgroundWrites,
  ) {}

  onApplicationBootstrap(): void {
    // First, so that an answer Fastify writes at once (its 503 while closing) carries the header too.
    this.server.prependListener('request', this.track);
    this.server.on('connection', this.connected);
  }

  private get server(): Server {
    return this.adapterHost.httpAdapter.getHttpServer() as Server;
  }

  private readonly connected = (socket: Socket) => {
    this.connections.add(socket);
    socket.once('close', () => {
      this.connections.delete(socket);
      this.idleSince.delete(socket);
    });
  };

  private readonly track = (_request: IncomingMessage, response: ServerResponse) => {
    if (this.draining) closeAfter(response);
    this.inFlight.add(response);
    response.on('close', this.untrack);
  };

  /** Resolves once every connection has gone: answered and closed, long idle and closed, or cut at the end of the grace period. */
  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    this.inFlight.forEach(closeAfter);
    const server = this.server;
    if (!server.listening) return;
    const graceMs = this.config.getOrThrow<number>('SHUTDOWN_GRACE_SECONDS') * 1000;
    this.cutter = setTimeout(() => server.closeAllConnections(), graceMs).unref();
    this.sweeper = setInterval(() => this.closeLongIdle(), SWEEP_EVERY_MS).unref();
    // net.Server's own close: it stops accepting and calls back once the last connection has
    // gone, without http.Server's closing of idle connections. Nest's own close finds none left.
    await new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
    clearInterval(this.sweeper);
  }

  /** Closes the connections idle for `IDLE_BEFORE_CLOSE_MS`. */
  private closeLongIdle(): void {
    const now = Date.now();
    const busy = new Set([...this.inFlight].map((response) => response.socket));
    for (const socket of this.connections) {
      if (busy.has(socket)) this.idleSince.delete(socket);
      else if (!this.idleSince.has(socket)) this.idleSince.set(socket, now);
    }
    for (const [socket, since] of this.idleSince) {
      if (now - since < IDLE_BEFORE_CLOSE_MS) continue;
      this.idleSince.delete(socket);
      socket.destroy();
    }
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
    this.server.off('connection', this.connected);
    await this.background.flush();
  }
}

/** How long a connection must go without a request before the drain closes it: far longer than a keep-alive client takes to send its next one. */
const IDLE_BEFORE_CLOSE_MS = 300;
const SWEEP_EVERY_MS = 50;

/** Node closes the connection after an answer whose headers say so; one already begun keeps what it sent. */
function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close');
}

/** A `close` listener that takes its response (`this`) out of `inFlight`. */
function untrackerOf(inFlight: Set<ServerResponse>): (this: ServerResponse) => void {
  return function untrack(this: ServerResponse) {
    inFlight.delete(this);
  };
}
