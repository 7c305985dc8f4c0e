import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { CALLER_REQUIREMENT } from './caller.guard.js';

/** Paths whose routes act for a caller: each must say who may call it (and so is rate-limited). */
const CALLER_PATHS = /^\/?(api|admin)(\/|$)/;

const join = (prefix: string, path: string) =>
  `/${[prefix, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;

/**
 * Stops start-up when a route under `/api` or `/admin` lacks `@Authenticated()` or
 * `@AdminOnly()`: such a route would be open to anyone and skip the rate limit.
 */
@Injectable()
export class RouteRequirements implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onApplicationBootstrap(): void {
    const open = unguardedRoutes(this.discovery, this.scanner);
    if (open.length) {
      throw new Error(`Routes under /api and /admin must declare their caller with @Authenticated() or @AdminOnly(); missing on ${open.join(', ')}`);
    }
  }
}

export function unguardedRoutes(discovery: DiscoveryService, scanner: MetadataScanner): string[] {
  const open: string[] = [];
  for (const { metatype } of discovery.getControllers()) {
    if (!metatype || typeof metatype !== 'function') continue;
    const prefixes = [Reflect.getMetadata(PATH_METADATA, metatype) ?? ''].flat() as string[];
    const classRequirement = Reflect.getMetadata(CALLER_REQUIREMENT, metatype);
    for (const methodName of scanner.getAllMethodNames(metatype.prototype)) {
      const method = metatype.prototype[methodName];
      const paths = Reflect.getMetadata(PATH_METADATA, method) as string | string[] | undefined;
      if (paths === undefined) continue;
      const full = prefixes.flatMap((prefix) => [paths].flat().map((path) => join(prefix, path)));
      if (full.some((path) => CALLER_PATHS.test(path)) && !classRequirement && !Reflect.getMetadata(CALLER_REQUIREMENT, method)) {
        open.push(`${metatype.name}.${methodName} (${full.join(', ')})`);
      }
    }
  }
  return open;
}
