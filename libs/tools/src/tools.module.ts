import { Module, type DynamicModule } from '@nestjs/common';
import { EchoService } from './echo.service.js';

export interface ToolsModuleOptions {
  /** Registers the tools, resources and prompts the MCP conformance suite expects. */
  MCP_CONFORMANCE_FIXTURES: boolean;
}

/** The built-in tools. */
@Module({})
export class ToolsModule {
  static register(options: ToolsModuleOptions): DynamicModule {
    return { module: ToolsModule, providers: [EchoService] };
  }
}
