import { Injectable, Logger, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DiscoveryService } from '@nestjs/core';
import type { DiscoveredCapabilities } from './descriptors.js';
import { exploreClasses, type ClassToExplore } from './explore-classes.js';

export type { OptionalToolClass } from './explore-classes.js';

/** Walks the Nest providers once at bootstrap and describes every tool, resource and prompt they declare. */
@Injectable()
export class McpExplorer {
  private readonly logger = new Logger('McpExplorer');

  constructor(
    private readonly discovery: DiscoveryService,
    @Optional() private readonly config?: ConfigService,
  ) {}

  explore(): DiscoveredCapabilities {
    const classes: ClassToExplore[] = [];
    const seen = new Set<object>();
    for (const { instance, metatype } of this.discovery.getProviders()) {
      if (!instance || typeof instance !== 'object' || !metatype || seen.has(instance)) continue;
      seen.add(instance);
      classes.push({ metatype: instance.constructor, instance });
    }
    const found = exploreClasses(classes, this.config, this.logger);
    for (const tool of found.tools) {
      for (const warning of tool.warnings) this.logger.warn(warning);
      this.logger.log(`Loaded tool: ${tool.name}`);
    }
    return found;
  }
}
