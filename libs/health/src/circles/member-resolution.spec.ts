import { resolvePerson, shadowedBy, type CircleNames, type CirclePerson } from './member-resolution.js';

const person = (userId: string, name: string, email: string, nicknames: string[] = [], memberIds = [`m-${userId}`]): CirclePerson => ({
  userId,
  memberIds,
  name,
  email,
  nicknames,
  sharesWithCaller: true,
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

  it("never lets a nickname win over someone's e-mail, user id or member id, whether or not they share", () => {
    const quiet = { ...person('q', 'Quinn', 'quinn@example.com'), sharesWithCaller: false };
    const poser = person('p', 'Pat', 'pat@example.com', ['quinn@example.com', 'q', 'M-Q']);
    for (const query of [' Quinn@Example.com ', 'q', 'm-q']) expect(resolvePerson(query, [poser, quiet])).toEqual({ kind: 'found', person: quiet });
  });

  it('finds someone invited who has not joined by the invited address', () => {
    const invited: CirclePerson = { userId: null, memberIds: ['m-x'], name: null, email: 'x@example.com', nicknames: [], sharesWithCaller: false };
    const poser = person('p', 'Pat', 'pat@example.com', ['x@example.com']);
    expect(resolvePerson('x@example.com', [poser, invited])).toEqual({ kind: 'found', person: invited });
  });

  it('answers a display name and a nickname that are alike as ambiguous, never picking one', () => {
    const poser = person('p', 'Pat', 'pat@example.com', ['alice smith']);
    expect(resolvePerson('Alice Smith', [alice, poser])).toEqual({ kind: 'ambiguous', candidates: [alice, poser] });
  });
});

describe('shadowedBy', () => {
  const others: CircleNames[] = [
    { memberId: 'm-a', name: 'Alice Smith', email: 'alice@example.com', invitedEmail: 'alice@example.com', nickname: 'Mom' },
    { memberId: 'm-x', name: null, email: null, invitedEmail: 'x@example.com', nickname: null },
  ];

  it.each([
    ['ALICE@example.com ', 'm-a', 'e-mail address'],
    ['  alice smith', 'm-a', 'name'],
    ['mom', 'm-a', 'nickname'],
    ['X@Example.com', 'm-x', 'e-mail address'],
  ])('refuses %j, which is how the circle knows someone else', (nickname, memberId, what) => {
    expect(shadowedBy(nickname, others)).toEqual({ memberId, what });
  });

  it("lets a nickname be anything that is nobody else's", () => {
    expect(shadowedBy('Alice', others)).toBeNull();
    expect(shadowedBy('Grandma', [])).toBeNull();
  });
});
