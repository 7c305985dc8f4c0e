import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import {
  Controller,
  Get,
  Inject,
  Injectable,
  Logger,
  Res,
  UnauthorizedException,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Metrics } from '@app/common';

/** Records every HTTP exchange's duration under its route template (`/api/files/:id`, never the id), or none for a path no route serves. */
export function recordHttpMetrics(fastify: FastifyInstance, metrics: Metrics): void {
  if (!metrics.enabled) return;
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(request.method, request.routeOptions.url ?? '', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time. */
@Injectable()
class MetricsTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(ConfigService) config: ConfigService) {
    this.expected = digest(config.getOrThrow<string>('METRICS_TOKEN'));
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const [scheme, token] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() === 'bearer' && token && timingSafeEqual(digest(token), this.expected)) return true;
    context.switchToHttp().getResponse<FastifyReply>().header('www-authenticate', 'Bearer realm="metrics"');
    throw new UnauthorizedException('GET /metrics takes the METRICS_TOKEN as a bearer token');
  }
}

/**
 * `GET /metrics` on the main port, for the Prometheus that holds `METRICS_TOKEN` (its scrape
 * config's `authorization.credentials`). Not in the OpenAPI document: it is not an API of users'.
 */
@ApiExcludeController()
@Controller('metrics')
@UseGuards(MetricsTokenGuard)
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const exposition = await this.metrics.scrape();
    await reply.header('content-type', this.metrics.contentType).header('cache-control', 'no-store').send(exposition);
  }
}

/**
 * `METRICS_PORT`: a listener of its own on `HOST` that serves `GET /metrics` and nothing else,
 * without a token, for a network only Prometheus reaches (a sidecar, a pod's own port). It
 * closes with the app, after the main port, so the last scrape can see the drain.
 */
@Injectable()
export class MetricsPort implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    private readonly metrics: Metrics,
    @Inject(ConfigService) private readonly config: ConfigService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.getOrThrow<number>('METRICS_PORT');
    if (port === 0) return;
    const host = this.config.getOrThrow<string>('HOST');
    const server = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0];
      if (path !== '/metrics') return void response.writeHead(404, { 'content-type': 'text/plain' }).end('Only /metrics is served here\n');
      if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { allow: 'GET, HEAD' }).end();
      this.metrics.scrape().then(
        (exposition) =>
          response
            .writeHead(200, { 'content-type': this.metrics.contentType, 'cache-control': 'no-store' })
            .end(request.method === 'GET' ? exposition : undefined),
        (error: Error) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`Collecting the metrics failed: ${error.message}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => reject(new Error(`METRICS_PORT ${port} on ${host}: ${error.code ?? error.message}`)));
      server.listen(port, host, resolve);
    });
    this.server = server;
    this.logger.log(`Metrics at http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
