import { resolvePerson, type ReadablePerson } from './member-resolution.js';

const person = (userId: string, name: string, email: string, nicknames: string[] = [], memberIds = [`m-${userId}`]): ReadablePerson => ({
  userId,
  memberIds,
  name,
  email,
  nicknames,
});

const alice = person('a', 'Alice Smith', 'alice@example.com', ['Mom']);
const alicia = person('b', 'Alicia Keys', 'alicia@example.com');
const bob = person('c', 'Bob', 'bob@example.com', [], ['m-c1', 'm-c2']);
const people = [alice, alicia, bob];

describe('resolvePerson', () => {
  it.each([
    ['m-c2', bob],
    ['M-C1', bob],
    ['alice smith', alice],
    ['MOM', alice],
    ['Bob@Example.com', bob],
    ['smith', alice],
    ['keys', alicia],
  ])('%s names one person', (query, expected) => expect(resolvePerson(query, people)).toEqual({ kind: 'found', person: expected }));

  it('prefers an exact match to partial ones', () => {
    const al = person('d', 'Al', 'al@x.org');
    expect(resolvePerson('al', [...people, al])).toEqual({ kind: 'found', person: al });
  });

  it('reports an ambiguous partial match with its candidates', () => {
    expect(resolvePerson('ali', people)).toEqual({ kind: 'ambiguous', candidates: [alice, alicia] });
  });

  it('finds nobody outside the list it is given', () => {
    expect(resolvePerson('carol', people)).toEqual({ kind: 'none' });
    expect(resolvePerson('alice', [])).toEqual({ kind: 'none' });
  });
});
