import { Module } from '@nestjs/common';
import { optionsFromConfig } from '@app/common';
import { DatabaseModule } from '@app/database';
import { McpTaskEntity } from './mcp-task.entity.js';
import { McpTasks } from './mcp-tasks.service.js';
import { CreateMcpTasks1797200000000 } from './migrations/1797200000000-create-mcp-tasks.js';
import { IndexMcpTasksByTime1797400300000 } from './migrations/1797400300000-index-mcp-tasks-by-time.js';
import { McpTaskQueries } from './task-queries.js';
import { TaskStore } from './task-store.js';
import { MCP_TASKS_CONFIG_SECTION, MCP_TASKS_OPTIONS } from './tasks.config.js';

/**
 * The MCP tasks extension on the app's database: `McpModule.forRoot(settings, [..., McpTasksModule])`
 * makes `@McpTool({ task })` tools answer long calls with tasks. Its options are the app
 * configuration's `tasks` section (`MCP_TASK_*`, `MCP_MAX_TASKS_PER_USER`). `McpTaskQueries` reads
 * the tasks for the REST routes.
 */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [McpTaskEntity], migrations: [CreateMcpTasks1797200000000, IndexMcpTasksByTime1797400300000] })],
  providers: [optionsFromConfig(MCP_TASKS_OPTIONS, MCP_TASKS_CONFIG_SECTION), TaskStore, McpTasks, McpTaskQueries],
  exports: [McpTasks, McpTaskQueries],
})
export class McpTasksModule {}
