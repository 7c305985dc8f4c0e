import { Logger } from '@nestjs/common';
import { registerToolModuleHooks } from '@app/mcp';
import { ConfigError, loadAppConfig, type AppConfig } from './config.js';
import { createApp } from './create-app.js';

function configuration(): AppConfig {
  try {
    return loadAppConfig(process.env, { configDir: process.cwd() });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

const config = configuration();
registerToolModuleHooks(new URL('./tool-api.js', import.meta.url), config.toolDirectories.directories);
const app = await createApp(config);
// SIGTERM: stop accepting, let requests finish, close sessions and the database, then exit 0.
app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  // If closing hangs after connections were cut (say, the database never answers), give up.
  process.once(signal, () => setTimeout(() => process.exit(1), (config.SHUTDOWN_GRACE_SECONDS + 10) * 1000).unref());
}
await app.listen(config.PORT, config.HOST);
new Logger('Bootstrap').log(`MCP endpoint listening on ${await app.getUrl()}/mcp, public address ${config.PUBLIC_BASE_URL}/mcp`);
