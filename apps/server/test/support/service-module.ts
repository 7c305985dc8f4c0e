import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type DynamicModule, type INestApplicationContext, type Type } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { CommonModule } from '@app/common';
import { DatabaseModule } from '@app/database';
import { loadAppConfig, type AppConfig } from '../../src/config.js';
import { seedEmbeddedDatabase } from './pglite-template.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './test-database.js';

export interface RunningServices {
  context: INestApplicationContext;
  config: AppConfig;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * A lib's services on a database of their own, without HTTP: the configuration the app would
 * load from `env`, the common and database modules, and `modules` (`AuthModule`,
 * `OAuthModule.register()`), as `AppModule` composes them. For specs of a service's rules that
 * need its real tables but no request: an embedded database in a temporary directory, or a new
 * database on TEST_DATABASE_URL's server.
 */
export async function startServices(env: Record<string, string>, modules: (Type | DynamicModule)[]): Promise<RunningServices> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mirobody-services-'));
  let database: TestDatabase | undefined;
  let context: INestApplicationContext | undefined;
  const close = async () => {
    await context?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (TEST_DATABASE_URL) database = await createTestDatabase(TEST_DATABASE_URL);
    else seedEmbeddedDatabase(dataDir);
    const config = loadAppConfig({ DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}), ...env });
    @Module({
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => config] }),
        CommonModule.forRoot(config.common),
        DatabaseModule.forRoot({ ...config.database, dataDir }),
        ...modules,
      ],
    })
    class ServicesModule {}
    context = await NestFactory.createApplicationContext(ServicesModule, { logger: false, abortOnError: false });
    return { context, config, dataDir, close };
  } catch (error) {
    await close();
    throw error;
  }
}
