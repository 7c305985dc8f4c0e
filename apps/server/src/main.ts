import { Logger } from '@nestjs/common';
import { loadAppConfig } from './config.js';
import { createApp } from './create-app.js';

const config = loadAppConfig(process.env);
const app = await createApp(config);
await app.listen(config.PORT, config.HOST);
new Logger('Bootstrap').log(`MCP endpoint listening on http://${config.HOST}:${config.PORT}/mcp`);
