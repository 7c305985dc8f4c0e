import { Injectable, RequestMethod, type OnModuleInit } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { CALLER_REQUIREMENT, type CallerRequirement } from './caller.guard.js';

/** Paths whose routes act for a caller: each must say who may call it (and so is rate-limited). */
const CALLER_PATHS = /^\/?(api|admin)(\/|$)/;

const join = (prefix: string, path: string) =>
  `/${[prefix, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;

/** One handler of a controller, as Nest's router will serve it. */
export interface ControllerRoute {
  controller: Function;
  /** `Controller.method`, for messages. */
  name: string;
  method: keyof typeof RequestMethod;
  /** Its full paths (`/files/signed/:token`), one per controller prefix and handler path. */
  paths: string[];
  /** What `@Authenticated()` or `@AdminOnly()` demands of the caller; undefined on a route anyone may call. */
  requirement?: CallerRequirement;
}

/** Every route of the application's controllers, found as Nest's router finds them (discovery, then the handlers' metadata). */
export function controllerRoutes(discovery: DiscoveryService, scanner: MetadataScanner): ControllerRoute[] {
  const routes: ControllerRoute[] = [];
  for (const { metatype } of discovery.getControllers()) {
    if (!metatype || typeof metatype !== 'function') continue;
    const prefixes = [Reflect.getMetadata(PATH_METADATA, metatype) ?? ''].flat() as string[];
    const classRequirement = Reflect.getMetadata(CALLER_REQUIREMENT, metatype) as CallerRequirement | undefined;
    for (const methodName of scanner.getAllMethodNames(metatype.prototype)) {
      const handler = metatype.prototype[methodName];
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      routes.push({
        controller: metatype,
        name: `${metatype.name}.${methodName}`,
        method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod] as keyof typeof RequestMethod,
        paths: prefixes.flatMap((prefix) => [paths].flat().map((path) => join(prefix, path))),
        requirement: Reflect.getMetadata(CALLER_REQUIREMENT, handler) ?? classRequirement,
      });
    }
  }
  return routes;
}

/**
 * Stops start-up when a route under `/api` or `/admin` lacks `@Authenticated()` or
 * `@AdminOnly()`: such a route would be open to anyone and skip the rate limit. Checked at module
 * init, before any lib starts its timers or workers at bootstrap, so a refused app leaves none running.
 */
@Injectable()
export class RouteRequirements implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onModuleInit(): void {
    const open = unguardedRoutes(this.discovery, this.scanner);
    if (open.length) {
      throw new Error(`Routes under /api and /admin must declare their caller with @Authenticated() or @AdminOnly(); missing on ${open.join(', ')}`);
    }
  }
}

export function unguardedRoutes(discovery: DiscoveryService, scanner: MetadataScanner): string[] {
  return controllerRoutes(discovery, scanner)
    .filter((route) => !route.requirement && route.paths.some((path) => CALLER_PATHS.test(path)))
    .map((route) => `${route.name} (${route.paths.join(', ')})`);
}
