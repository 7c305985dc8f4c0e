import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CommonModule } from '../common.module.js';
import { UserDataContributor } from './user-data-contributor.decorator.js';
import { UserDataContributors } from './user-data-contributors.js';

@Injectable()
@UserDataContributor('notes')
class NotesUserData {
  exportFor = async (userId: string) => [{ userId, text: 'n' }];
  eraseFor = async () => undefined;
  countFor = async () => 1;
}

@Injectable()
@UserDataContributor('memories')
class MemoriesUserData {
  exportFor = async () => [];
  eraseFor = async () => undefined;
  countFor = async () => 0;
}

@Injectable()
@UserDataContributor('notes')
class OtherNotesUserData extends NotesUserData {}

@Injectable()
@UserDataContributor('broken')
class BrokenUserData {
  exportFor = async () => [];
}

/** A lib's module, as a feature lib declares its contributor. */
@Module({ providers: [NotesUserData] })
class NotesModule {}

async function boot(...providers: unknown[]) {
  const moduleRef = await Test.createTestingModule({
    imports: [CommonModule.forRoot({ signingSecret: 'x'.repeat(32) }), NotesModule],
    providers: providers as never[],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('UserDataContributors', () => {
  it("finds every lib's contributor by discovery, in name order", async () => {
    const moduleRef = await boot(MemoriesUserData);
    const found = moduleRef.get(UserDataContributors).all();
    expect(found.map(({ name }) => name)).toEqual(['memories', 'notes']);
    await expect(found[1]!.contributor.exportFor('u1')).resolves.toEqual([{ userId: 'u1', text: 'n' }]);
    await moduleRef.close();
  });

  it('refuses two contributors under one name, naming both', async () => {
    await expect(boot(OtherNotesUserData)).rejects.toThrow(
      /^Two user-data contributors are named "notes" \((NotesUserData and OtherNotesUserData|OtherNotesUserData and NotesUserData)\)/,
    );
  });

  it('refuses a contributor without the three methods, naming the missing one', async () => {
    await expect(boot(BrokenUserData)).rejects.toThrow("BrokenUserData is a @UserDataContributor('broken') but has no eraseFor(userId) method");
  });
});
