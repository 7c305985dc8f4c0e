import { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { UserDataContributors, type NamedContributor } from '@app/common';
import { ACCOUNT_PART } from './account-user-data.js';

/** Every lib's part of one user's data, through the `@UserDataContributor`s: export, erase, counts. */
@Injectable()
export class UserDataService {
  private readonly logger = new Logger('UserData');

  constructor(private readonly contributors: UserDataContributors) {}

  /**
   * One JSON document `{ exportedAt, userId, parts: { <lib>: ... } }`, written part by part so
   * the whole never sits in memory as one string. The first part is read before the stream is
   * handed over, so that a database that cannot be reached fails the request (503) before a 200
   * is sent, rather than cutting a download short.
   */
  async exportStream(userId: string): Promise<Readable> {
    const [first, ...rest] = this.contributors.all();
    const part = async ({ name, contributor }: NamedContributor) => `${JSON.stringify(name)}:${JSON.stringify((await contributor.exportFor(userId)) ?? null)}`;
    const firstPart = first ? await part(first) : undefined;
    async function* document(): AsyncGenerator<string> {
      yield `{"exportedAt":${JSON.stringify(new Date())},"userId":${JSON.stringify(userId)},"parts":{`;
      if (firstPart !== undefined) yield firstPart;
      for (const contributor of rest) yield `,${await part(contributor)}`;
      yield '}}';
    }
    return Readable.from(document());
  }

  /** Every lib's rows of the user, the account itself last (other parts may refer to it). */
  async erase(userId: string): Promise<void> {
    for (const { name, contributor } of this.inErasureOrder()) {
      await contributor.eraseFor(userId);
      this.logger.log(`Erased the ${name} data of user ${userId}`);
    }
  }

  async counts(userId: string): Promise<Record<string, number>> {
    const counted = await Promise.all(this.contributors.all().map(async ({ name, contributor }) => [name, await contributor.countFor(userId)] as const));
    return Object.fromEntries(counted);
  }

  private inErasureOrder(): NamedContributor[] {
    const all = [...this.contributors.all()];
    return [...all.filter(({ name }) => name !== ACCOUNT_PART), ...all.filter(({ name }) => name === ACCOUNT_PART)];
  }
}
