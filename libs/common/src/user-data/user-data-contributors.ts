import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { USER_DATA_CONTRIBUTOR, type UserDataContributorShape } from './user-data-contributor.decorator.js';

export interface NamedContributor {
  readonly name: string;
  readonly contributor: UserDataContributorShape;
}

/** Every `@UserDataContributor` of the app, found once at bootstrap, in a stable order (by name). */
@Injectable()
export class UserDataContributors implements OnApplicationBootstrap {
  private found: readonly NamedContributor[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    const byName = new Map<string, NamedContributor>();
    for (const wrapper of this.discovery.getProviders()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype || typeof metatype !== 'function') continue;
      const name = Reflect.getMetadata(USER_DATA_CONTRIBUTOR, metatype) as string | undefined;
      if (name === undefined) continue;
      const contributor = instance as UserDataContributorShape;
      for (const method of ['exportFor', 'eraseFor', 'countFor'] as const) {
        if (typeof contributor[method] !== 'function')
          throw new Error(`${metatype.name} is a @UserDataContributor('${name}') but has no ${method}(userId) method`);
      }
      const existing = byName.get(name);
      if (existing && existing.contributor !== contributor) {
        throw new Error(
          `Two user-data contributors are named "${name}" (${existing.contributor.constructor.name} and ${metatype.name}); give each lib its own name`,
        );
      }
      byName.set(name, { name, contributor });
    }
    this.found = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  all(): readonly NamedContributor[] {
    return this.found;
  }
}
