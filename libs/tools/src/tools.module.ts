import { Module, type DynamicModule } from '@nestjs/common';
import { ConformanceFixturesModule } from './conformance/conformance-fixtures.module.js';
import { EchoService } from './echo.service.js';
import { FilesToolsService } from './files/files-tools.service.js';
import { WhoamiService } from './whoami.service.js';

export interface ToolsModuleOptions {
  /** Registers the tools, resources and prompts the MCP conformance suite expects. */
  MCP_CONFORMANCE_FIXTURES: boolean;
}

/** The built-in tools, plus the conformance fixtures when switched on. */
@Module({})
export class ToolsModule {
  static forRoot(options: ToolsModuleOptions): DynamicModule {
    return {
      module: ToolsModule,
      imports: options.MCP_CONFORMANCE_FIXTURES ? [ConformanceFixturesModule] : [],
      providers: [EchoService, WhoamiService, FilesToolsService],
    };
  }
}
