import { Module } from '@nestjs/common';
import { ConformanceInputRequiredService } from './conformance-input-required.service.js';
import { ConformanceResourcesService } from './conformance-resources.service.js';
import { ConformanceSchemasService } from './conformance-schemas.service.js';
import { ConformanceToolsService } from './conformance-tools.service.js';

/**
 * The tools, resources and prompts the official MCP conformance suite expects, declared with our
 * own decorators so the suite exercises the same path as real tools. Imported only when
 * `MCP_CONFORMANCE_FIXTURES` is on; never in a normal deployment.
 */
@Module({ providers: [ConformanceToolsService, ConformanceSchemasService, ConformanceInputRequiredService, ConformanceResourcesService] })
export class ConformanceFixturesModule {}
