import type { ConfigService } from '@nestjs/config';
import { ToolDefinitionError } from '../schema/tool-definition.error.js';
import { importErrorMessage } from '../tool-directories/import-tool-files.js';
import { describeOrigin, originOf, precedence, type ToolOrigin } from '../tool-directories/tool-origin.js';
import type { DiscoveredCapabilities, DisabledToolDescriptor } from './descriptors.js';
import { describeDisabledTools } from './disabled-tools.js';
import { describeProvider, hasMcpMetadata, isToolClass, TOOL_CLASS_SUFFIX } from './describe-provider.js';

/** A tool class may opt out at start-up, e.g. when the integration it wraps is not configured. */
export interface OptionalToolClass {
  enabled?(config: ConfigService | undefined): boolean;
}

export interface ExploreLog {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ClassToExplore {
  metatype: Function;
  /** The provider instance; an object of the class's prototype stands in when only describing (the offline catalog). */
  instance: object;
}

const emptyCapabilities = (): DiscoveredCapabilities => ({ tools: [], resources: [], resourceTemplates: [], prompts: [], completions: [] });

/**
 * Describes every tool, resource and prompt the classes declare. Classes from tool directories
 * come first, in `MCP_TOOL_DIRS` order, and the first definition of a name wins; a directory file
 * whose declarations cannot be described is skipped like one that fails to import. Two packaged
 * classes defining one name, or a packaged tool that cannot be described, stop start-up: that is a
 * bug in the server.
 */
export function exploreClasses(classes: readonly ClassToExplore[], config: ConfigService | undefined, log: ExploreLog): DiscoveredCapabilities {
  const ordered = [...classes].sort((a, b) => precedence(originOf(a.metatype)) - precedence(originOf(b.metatype)));
  const described: DiscoveredCapabilities[] = [];
  const disabled: DisabledToolDescriptor[] = [];
  const failedFiles = new Set<string>();
  for (const { metatype, instance } of ordered) {
    const className = metatype.name;
    if (!hasMcpMetadata(metatype.prototype)) continue;
    if (!isToolClass(metatype)) {
      log.warn(`Ignoring MCP decorators on ${className}: mark the class @McpTools(), or name it *${TOOL_CLASS_SUFFIX}`);
      continue;
    }
    const origin = originOf(metatype);
    if (!isEnabled(metatype as OptionalToolClass, className, config, log)) {
      disabled.push(...describeDisabledTools(instance, className, origin));
      continue;
    }
    try {
      described.push(describeProvider(instance, className, origin));
    } catch (error) {
      if (origin.kind === 'packaged' || !(error instanceof ToolDefinitionError)) throw error;
      log.error(importErrorMessage(origin.file, error.message));
      failedFiles.add(origin.file);
    }
  }
  const found = emptyCapabilities();
  const loaded = (origin: ToolOrigin) => origin.kind === 'packaged' || !failedFiles.has(origin.file);
  for (const capabilities of described) {
    for (const key of Object.keys(found) as Exclude<keyof DiscoveredCapabilities, 'disabledTools'>[]) {
      (found[key] as unknown[]).push(...capabilities[key].filter((entry) => loaded(entry.origin)));
    }
  }
  const kept = firstDefinitionWins(found, log);
  return { ...kept, disabledTools: onePerName(disabled, new Set(kept.tools.map((tool) => tool.name))) };
}

/** The first disabled tool of each name no enabled tool has (an enabled one of that name is what callers get). */
function onePerName(disabled: readonly DisabledToolDescriptor[], enabled: ReadonlySet<string>): DisabledToolDescriptor[] {
  const seen = new Set(enabled);
  return disabled.filter((tool) => !seen.has(tool.name) && seen.add(tool.name));
}

function isEnabled(toolClass: OptionalToolClass, className: string, config: ConfigService | undefined, log: ExploreLog): boolean {
  if (typeof toolClass.enabled !== 'function') return true;
  try {
    if (toolClass.enabled(config)) return true;
    log.log(`Skipping disabled tool class: ${className}`);
  } catch (error) {
    log.warn(`Skipping disabled tool class: ${className} (enabled() threw: ${(error as Error).message})`);
  }
  return false;
}

interface Named {
  className: string;
  methodName: string;
  origin: ToolOrigin;
}

/** Keeps the first entry per key (entries arrive in precedence order) and says which one each later entry lost to. */
function keepFirst<T extends Named>(kind: string, entries: T[], keyOf: (entry: T) => string, log: ExploreLog): T[] {
  const kept = new Map<string, T>();
  for (const entry of entries) {
    const key = keyOf(entry);
    const first = kept.get(key);
    if (!first) {
      kept.set(key, entry);
      continue;
    }
    const owner = (named: Named) => `${named.className}.${named.methodName} (${describeOrigin(named.origin)})`;
    if (first.origin.kind === 'packaged' && entry.origin.kind === 'packaged') {
      throw new ToolDefinitionError(
        `${kind} "${key}"`,
        `declared by both ${first.className}.${first.methodName} and ${entry.className}.${entry.methodName}`,
        'rename one of them with the name option',
      );
    }
    log.warn(`Overriding ${kind} "${key}": ${owner(first)} replaces ${owner(entry)}`);
  }
  return [...kept.values()];
}

function firstDefinitionWins(found: DiscoveredCapabilities, log: ExploreLog): DiscoveredCapabilities {
  return {
    tools: keepFirst('tool', found.tools, (tool) => tool.name, log),
    prompts: keepFirst('prompt', found.prompts, (prompt) => prompt.name, log),
    resources: keepFirst('resource', found.resources, (resource) => resource.options.uri, log),
    resourceTemplates: keepFirst('resource template', found.resourceTemplates, (template) => template.options.uriTemplate, log),
    completions: keepFirst('completion', found.completions, (completion) => `${completion.refKey}#${completion.argument}`, log),
  };
}
