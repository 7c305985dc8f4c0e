import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger as PinoInstance } from 'pino';
import { registerToolModuleHooks } from '@app/mcp';
import { describeDatabase, DirectoryLockedError, embeddedDir, lockHolder } from '@app/database';
import type { AppExtensions } from './app.module.js';
import { ConfigError, loadAppConfig, lookalikeSettings, type AppConfig } from './config.js';
import { createApp } from './create-app.js';
import { processLogger } from './log-format.js';

type Refuse = (message: string) => never;

/**
 * Starts the server in this process as `npm start` does, with `extensions` (your own modules of tools)
 * beside the built-in ones: configuration from `.env`, `config.yaml` and the environment, the tool
 * directories' module hooks, the embedded database's lock, the start-up line, and a graceful stop on
 * SIGTERM or SIGINT. `main.ts` is this call alone; a company's own entry file makes it with its modules
 * (README, Serve your own tools). Once per process: it owns the process's signals, and when the server
 * cannot start it says why in one line and exits 1. Resolves to the listening app.
 */
export async function bootstrap(extensions: AppExtensions = {}): Promise<NestFastifyApplication> {
  const config = configuration();
  // Before the app module is built: that is when tool directories are imported.
  registerToolModuleHooks(new URL('./tool-api.js', import.meta.url), config.toolDirectories.directories);
  // Lines of the process itself: before the application logs, when it cannot start, and after it has gone.
  const log = processLogger(config.LOG_LEVEL, config.LOG_FORMAT);
  for (const { name, setting, source } of lookalikeSettings(process.env, { configDir: process.cwd() })) {
    log.warn(`${name} in ${source} is no setting of this server and is ignored: did you mean ${setting}?`);
  }
  const refuse: Refuse = (message) => {
    log.fatal(message);
    process.exit(1);
  };
  if (!config.database.url) checkEmbeddedDatabase(config.DATA_DIR, log, refuse);

  const app = await createApp(config, extensions).catch((error: unknown) =>
    error instanceof DirectoryLockedError ? refuse(error.message) : Promise.reject(error),
  );
  stopOnSignals(app, config, log);
  await listen(app, config, refuse);
  const docs = app.getHttpAdapter().getInstance().hasRoute({ method: 'GET', url: '/docs' }) ? `, API docs at ${config.PUBLIC_BASE_URL}/docs` : '';
  new Logger('Bootstrap').log(
    `MCP endpoint listening on ${await app.getUrl()}/mcp, public address ${config.PUBLIC_BASE_URL}/mcp${docs}; ` +
      `database: ${describeDatabase({ ...config.database, dataDir: config.DATA_DIR })}`,
  );
  return app;
}

function configuration(): AppConfig {
  try {
    return loadAppConfig(process.env, { configDir: process.cwd() });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

function checkEmbeddedDatabase(dataDir: string, log: PinoInstance, refuse: Refuse): void {
  const directory = embeddedDir(dataDir);
  // Checked here for a plain message; the database itself takes the lock (lockDirectory).
  const holder = lockHolder(directory);
  if (holder !== undefined) refuse(new DirectoryLockedError(directory, holder).message);
  if (!existsSync(join(directory, 'PG_VERSION'))) log.info(`Creating the embedded database in ${directory} (first start only, about 10 s)`);
}

/** SIGTERM: stop accepting, let requests finish, close sessions and the database, then exit 0. */
function stopOnSignals(app: NestFastifyApplication, config: AppConfig, log: PinoInstance): void {
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log.info(`${signal}: shutting down (calls in flight get up to ${config.SHUTDOWN_GRACE_SECONDS} s)`);
      // If closing hangs after connections were cut (say, the database never answers), give up.
      setTimeout(() => process.exit(1), (config.SHUTDOWN_GRACE_SECONDS + 10) * 1000).unref();
    });
  }
  process.once('exit', (code) => log.info(`Stopped (exit code ${code})`));
}

/** Why the server cannot listen where it was told to, by the error's code, naming the setting to change. */
function listenRefusals({ PORT, HOST }: AppConfig): Record<string, string> {
  return {
    EADDRINUSE: `port ${PORT} is in use on ${HOST} (set PORT to another one)`,
    EACCES: `port ${PORT} on ${HOST} needs privileges this process lacks (set PORT to 1024 or above)`,
    EADDRNOTAVAIL: `HOST ${HOST} is no address of this machine (set HOST to one of its addresses, 127.0.0.1, or 0.0.0.0 for all)`,
    ENOTFOUND: `HOST ${HOST} is no name this machine can resolve (set HOST to an address, 127.0.0.1, or 0.0.0.0 for all)`,
  };
}

async function listen(app: NestFastifyApplication, config: AppConfig, refuse: Refuse): Promise<void> {
  try {
    await app.listen(config.PORT, config.HOST);
  } catch (error) {
    const refusal = listenRefusals(config)[(error as NodeJS.ErrnoException).code ?? ''];
    if (refusal === undefined) throw error;
    await app.close();
    refuse(refusal);
  }
}
