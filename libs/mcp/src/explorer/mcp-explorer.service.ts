import { Injectable, Logger, Optional, Scope } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DiscoveryService } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { ToolDefinitionError } from '../schema/tool-definition.error.js';
import type { DiscoveredCapabilities } from './descriptors.js';
import { describeProvider, hasMcpMetadata, TOOL_CLASS_SUFFIX } from './describe-provider.js';

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

/** A tool class may opt out at start-up, e.g. when the integration it wraps is not configured. */
export interface OptionalToolClass {
  enabled?(config: ConfigService | undefined): boolean;
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
    const found: DiscoveredCapabilities = { tools: [], resources: [], resourceTemplates: [], prompts: [], completions: [] };
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const { instance, metatype } = wrapper;
      if (metatype && !wrapper.isDependencyTreeStatic() && hasMcpMetadata(metatype.prototype)) refuseRequestScoped(wrapper);
      if (!instance || typeof instance !== 'object' || !metatype || seen.has(instance)) continue;
      seen.add(instance);
      const prototype = Object.getPrototypeOf(instance);
      if (!hasMcpMetadata(prototype)) continue;
      const className = instance.constructor.name;
      if (!className.endsWith(TOOL_CLASS_SUFFIX)) {
        this.logger.warn(`Ignoring MCP decorators on ${className}: only providers whose class name ends in "${TOOL_CLASS_SUFFIX}" are explored`);
        continue;
      }
      if (!this.isEnabled(instance.constructor as OptionalToolClass, className)) continue;
      const described = describeProvider(instance, className);
      for (const key of Object.keys(found) as (keyof DiscoveredCapabilities)[]) {
        (found[key] as unknown[]).push(...described[key]);
      }
    }
    this.refuseDuplicates(found);
    for (const tool of found.tools) {
      for (const warning of tool.warnings) this.logger.warn(warning);
      this.logger.log(`Loaded tool: ${tool.name}`);
    }
    return found;
  }

  private isEnabled(toolClass: OptionalToolClass, className: string): boolean {
    if (typeof toolClass.enabled !== 'function') return true;
    try {
      if (toolClass.enabled(this.config)) return true;
      this.logger.log(`Skipping disabled tool class: ${className}`);
    } catch (error) {
      this.logger.warn(`Skipping disabled tool class: ${className} (enabled() threw: ${(error as Error).message})`);
    }
    return false;
  }

  private refuseDuplicates(found: DiscoveredCapabilities): void {
    const lists: [string, { key: string; owner: string }[]][] = [
      ['tool', found.tools.map((tool) => ({ key: tool.name, owner: `${tool.className}.${tool.methodName}` }))],
      ['prompt', found.prompts.map((prompt) => ({ key: prompt.name, owner: `${prompt.className}.${prompt.methodName}` }))],
      ['resource', found.resources.map((resource) => ({ key: resource.options.uri, owner: `${resource.className}.${resource.methodName}` }))],
    ];
    for (const [kind, entries] of lists) {
      const owners = new Map<string, string>();
      for (const { key, owner } of entries) {
        const first = owners.get(key);
        if (first) throw new ToolDefinitionError(`${kind} "${key}"`, `declared by both ${first} and ${owner}`, 'rename one of them with the name option');
        owners.set(key, owner);
      }
    }
  }
}
