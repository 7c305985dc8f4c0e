import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerMcpBodyParsers } from '@app/mcp';
import { AppModule, type AppExtensions } from './app.module.js';
import type { AppConfig } from './config.js';

/** Builds the application as `main.ts` serves it; end-to-end tests boot the same thing. */
export async function createApp(
  config: AppConfig,
  options: AppExtensions & { logger?: false } = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter();
  registerMcpBodyParsers(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config, options), adapter, {
    bodyParser: false,
    ...(options.logger === false ? { logger: false } : {}),
  });
  app.enableShutdownHooks();
  return app;
}
