export { ToolsModule } from './tools.module.js';
