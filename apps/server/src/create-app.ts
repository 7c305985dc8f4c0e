import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import { Metrics, Tracing } from '@app/common';
import { registerFileUploads } from '@app/files';
import { registerMcpBodyParsers } from '@app/mcp';
import { registerOAuthFormBodies } from '@app/oauth';
import { AppModule, type AppExtensions } from './app.module.js';
import type { AppConfig } from './config.js';
import { registerCors } from './cors.js';
import { registerLingeringClose } from './lingering-close.js';
import { withQuietStartup } from './log-format.js';
import { loadPackagedToolTypes } from './packaged-tool-types.js';
import { recordHttpSpans } from './http-spans.js';
import { recordHttpMetrics } from './metrics.js';
import { answerRefusedTarget, echoRequestId, logRequests, requestId } from './logging.js';
import { serveOpenApi } from './openapi.js';
import { serveConsole } from './console/serve-console.js';
import { fastifyTrustProxy } from './trust-proxy.js';

/** Builds the application as `main.ts` serves it; end-to-end tests boot the same thing, silent with `logger: false`. */
export async function createApp(config: AppConfig, options: AppExtensions & { logger?: false } = {}): Promise<NestFastifyApplication> {
  const silent = options.logger === false;
  await loadPackagedToolTypes();
  const adapter = new FastifyAdapter({
    genReqId: requestId,
    frameworkErrors: answerRefusedTarget(() => PinoLogger.root),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // request.ip, which every rate limit, the audit trail and the request lines read, is then the client's.
    ...(config.TRUST_PROXY === undefined ? {} : { trustProxy: fastifyTrustProxy(config.TRUST_PROXY) }),
  });
  echoRequestId(adapter.getInstance());
  registerCors(adapter.getInstance(), config.CORS_ORIGINS);
  registerLingeringClose(adapter.getInstance());
  registerMcpBodyParsers(adapter.getInstance());
  registerFileUploads(adapter.getInstance());
  registerOAuthFormBodies(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(silent ? { ...config, LOG_LEVEL: 'silent' } : config, options), adapter, {
    bodyParser: false,
    // Once shutdown begins, new requests get 503 while those in flight finish.
    return503OnClosing: true,
    // A failed start-up rejects, so that main.ts can say why in one line instead of aborting.
    abortOnError: false,
    // Start-up lines wait until pino takes over, so that every line is JSON.
    ...(silent ? { logger: false } : { bufferLogs: true }),
  });
  serveOpenApi(app, config.version);
  await serveConsole(app);
  recordHttpMetrics(adapter.getInstance(), app.get(Metrics));
  const traceIdOf = recordHttpSpans(adapter.getInstance(), app.get(Tracing));
  if (!silent) {
    app.useLogger(withQuietStartup(app.get(Logger)));
    logRequests(adapter.getInstance(), await app.resolve(PinoLogger), { requestContext: config.LOG_REQUEST_CONTEXT, traceIdOf });
  }
  return app;
}
