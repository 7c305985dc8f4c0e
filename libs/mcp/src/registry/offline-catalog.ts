import type { ConfigService } from '@nestjs/config';
import { exploreClasses, type ExploreLog } from '../explorer/explore-classes.js';
import { describeOrigin } from '../tool-directories/tool-origin.js';
import { ToolVisibility, type AgentToolLists } from '../visibility/tool-visibility.js';
import { ArgumentValidator } from './argument-validator.js';
import { formatCatalog, type CatalogFormat, type ToolCatalog } from './tool-catalog.js';
import { compileOrSkip, toToolDefinition } from './tool-definition.js';

export interface OfflineCatalogSource {
  /** Tool classes, packaged and from tool directories; none is instantiated. */
  classes: readonly Function[];
  config?: ConfigService;
  agentTools?: AgentToolLists;
  log: ExploreLog;
}

/**
 * The catalog a server with these classes and lists would serve, built from decorator metadata
 * alone by the same explorer, schema builder and visibility rules, for the CLI.
 */
export function offlineCatalog(source: OfflineCatalogSource, format: CatalogFormat, agent: string | undefined): ToolCatalog {
  const found = exploreClasses(
    // Stand-ins with the class's prototype: described, never constructed or called.
    source.classes.map((metatype) => ({ metatype, instance: Object.create(metatype.prototype) as object })),
    source.config,
    source.log,
  );
  const validator = new ArgumentValidator();
  const visibility = new ToolVisibility(source.agentTools);
  const visible = found.tools.filter((tool) => compileOrSkip(validator, tool, source.log) && visibility.allows(tool.name, agent));
  const origins = Object.fromEntries(visible.map((tool) => [tool.name, describeOrigin(tool.origin)]));
  return formatCatalog(visible.map(toToolDefinition), origins, format, agent);
}
