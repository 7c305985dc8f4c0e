import { Injectable, Logger, Optional, Scope } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DiscoveryService } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { ToolDefinitionError } from '../schema/tool-definition.error.js';
import type { DiscoveredCapabilities } from './descriptors.js';
import { hasMcpMetadata } from './describe-provider.js';
import { exploreClasses, type ClassToExplore } from './explore-classes.js';

export type { OptionalToolClass } from './explore-classes.js';

const isScoped = (wrapper: InstanceWrapper) => wrapper.scope !== undefined && wrapper.scope !== Scope.DEFAULT;

/** The request- or transient-scoped provider that makes the wrapper's dependency tree non-static, searched depth first. */
function scopedDependency(wrapper: InstanceWrapper, seen = new Set<InstanceWrapper>()): InstanceWrapper | undefined {
  if (isScoped(wrapper)) return wrapper;
  for (const dependency of wrapper.getCtorMetadata() ?? []) {
    if (!dependency || seen.has(dependency) || dependency.isDependencyTreeStatic()) continue;
    seen.add(dependency);
    return scopedDependency(dependency, seen) ?? dependency;
  }
  return undefined;
}

/**
 * A tool class must be a singleton: it is explored once and its instance called for every
 * request. One whose dependency tree is request-scoped would be listed and then fail on every
 * call, so start-up stops instead, naming the dependency.
 */
function refuseRequestScoped(wrapper: InstanceWrapper): never {
  const className = wrapper.metatype!.name;
  const culprit = scopedDependency(wrapper);
  const culpritName = culprit === wrapper ? `${className} itself` : String(culprit?.name ?? 'a dependency');
  throw new ToolDefinitionError(
    className,
    `is not a singleton: ${culpritName} is request- or transient-scoped (the tool instance is created once and shared by every call)`,
    'make the dependency a singleton, or read per-call data from @CurrentUser() / @ToolContext() instead of a request-scoped provider',
  );
}

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
    for (const wrapper of this.discovery.getProviders()) {
      const { instance, metatype } = wrapper;
      if (metatype && !wrapper.isDependencyTreeStatic() && hasMcpMetadata(metatype.prototype)) refuseRequestScoped(wrapper);
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
